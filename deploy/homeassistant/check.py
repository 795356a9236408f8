#!/usr/bin/env python3
"""Checks Switchboard against a running Home Assistant Core, as a Home Assistant user meets it.

Run by deploy/homeassistant/test.sh, which starts Home Assistant (not yet onboarded) and a broker.
This script onboards the owner, makes a long-lived access token, adds the MQTT integration through
its config flow, runs a real switchboardd (--simulate) on the repository's sample devices.json (with
a HomeKit bridge) and a stand-in for Zigbee2MQTT (answering the kitchen light's commands), and
checks through Home Assistant's REST and websocket APIs and the real switchboard CLI what a Home
Assistant user sees and does, over MQTT and through HomeKit Controller (the bridge discovered by
Home Assistant's zeroconf, paired with its setup code). Standard library only. Exits 1 at the first failed check,
saying what was expected and what was seen.
"""

import argparse
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from hass_client import HomeAssistant, WebSocket  # noqa: E402
from mqtt_client import MQTTClient  # noqa: E402

NODE = "garage-pi"
DEVICE_NAME = "Garage"
# The Home Assistant entities of the sample devices.json: its Control Center placements (the porch
# light as a light and the attic fan as a fan, as their "homeAssistant" blocks say, the kitchen
# placement as a switch, a button per button, and a select for the configurable "kitchen"
# placement), and the node's lock, diagnostics and command events. The Lock Screen ("porch-lock")
# and Action button ("action") placements have none. Entity id: (unique id, name, icon).
EXPECTED = {
    "light.garage_pi_porch": ("switchboard_garage-pi_porch_light", "Porch Light", "mdi:lightbulb"),
    "fan.garage_pi_fan": ("switchboard_garage-pi_fan_fan", None, "mdi:fan"),
    "button.garage_pi_garage": ("switchboard_garage-pi_garage", "Garage Door", "mdi:garage"),
    "switch.garage_pi_kitchen": ("switchboard_garage-pi_kitchen", "Kitchen Light", "mdi:lightbulb"),
    "select.garage_pi_kitchen_device": ("switchboard_garage-pi_kitchen_device", "Light device", "mdi:form-select"),
    "lock.garage_pi_lock": ("switchboard_garage-pi_lock", "Controls", None),
    "binary_sensor.garage_pi_connectivity": ("switchboard_garage-pi_connectivity", "Broker connection", None),
    "sensor.garage_pi_version": ("switchboard_garage-pi_version", "Version", "mdi:information-outline"),
    "sensor.garage_pi_rejected_messages": ("switchboard_garage-pi_rejected_messages", "Rejected messages",
                                           "mdi:message-alert-outline"),
    "binary_sensor.garage_pi_problems": ("switchboard_garage-pi_problems", "Problems", None),
    "event.garage_pi_commands": ("switchboard_garage-pi_commands", "Commands", "mdi:gesture-tap-button"),
    # The door contact this check adds to the sample (an input device): a binary sensor.
    "binary_sensor.garage_pi_contact": ("switchboard_garage-pi_input_contact", "Door Contact", None),
    # The wall push-button this check adds: an event entity of its presses.
    "event.garage_pi_button_wall": ("switchboard_garage-pi_button_wall", "wall button", None),
    # The covers this check adds: a blind and a roller door, each one cover entity.
    "cover.garage_pi_blind": ("switchboard_garage-pi_blind_cover", "Living Room Blind", None),
    "cover.garage_pi_roller_door": ("switchboard_garage-pi_roller-door_cover", "Roller Door", None),
    # Their end stop and reed, inputs: binary sensors.
    "binary_sensor.garage_pi_blind_bottom": ("switchboard_garage-pi_input_blind-bottom", "Blind Bottom", None),
    "binary_sensor.garage_pi_door_closed": ("switchboard_garage-pi_input_door-closed", "Door Closed", None),
    # The schedule this check adds: a configuration switch that pauses and resumes it.
    "switch.garage_pi_schedule_lights_out": ("switchboard_garage-pi_schedule_lights-out", "Schedule lights-out", "mdi:calendar-clock"),
    # The automation this check adds: a configuration switch too.
    "switch.garage_pi_automation_stop_blind_with_door": ("switchboard_garage-pi_automation_stop-blind-with-door", "Automation stop-blind-with-door", "mdi:robot"),
}
CONTACT = {"id": "contact", "name": "Door Contact", "type": "input", "deviceClass": "garage_door",
           "gpio": {"chip": "main", "line": 6, "bias": "pullUp", "activeLow": True, "debounce": "20ms"}}
# A wall push-button this check adds, bound to nothing: its presses are for Home Assistant (its
# doubleWindow makes it tell double presses apart).
WALL = {"id": "wall", "gpio": {"chip": "main", "line": 16, "bias": "pullUp", "activeLow": True, "debounce": "20ms"},
        "doubleWindow": "300ms"}
# A second Control Center placement of the fan this check adds, with every key of a placement's
# "homeAssistant" block but the component and area: an entity Home Assistant registers disabled,
# for its user to enable, with that device class, category and icon.
OUTLET = {"id": "fan-outlet", "control": "fan", "space": "controlCenter", "size": "small",
          "homeAssistant": {"deviceClass": "outlet", "entityCategory": "config", "enabled": False,
                            "icon": "mdi:power-socket-de"}}
OUTLET_ENTITY = "switch.garage_pi_fan_outlet"
# A roller blind (two interlocked relays, a closed end stop) and a roller door (a pulse and a reed)
# this check adds as covers, with their placements.
COVER_DEVICES = [
    {"id": "blind-up", "name": "Blind Up", "type": "relay", "gpio": {"chip": "main", "line": 20}},
    {"id": "blind-down", "name": "Blind Down", "type": "relay", "gpio": {"chip": "main", "line": 21}},
    {"id": "blind-bottom", "name": "Blind Bottom", "type": "input", "gpio": {"chip": "main", "line": 19, "debounce": "5ms"}},
    {"id": "door-opener", "name": "Door Opener", "type": "pulse", "pulse": "200ms", "gpio": {"chip": "main", "line": 24}},
    {"id": "door-closed", "name": "Door Closed", "type": "input", "gpio": {"chip": "main", "line": 25, "debounce": "5ms"}},
]
COVER_INTERLOCK = {"id": "blind", "devices": ["blind-up", "blind-down"], "deadTime": "300ms"}
COVERS = [
    {"id": "blind", "name": "Living Room Blind", "open": "blind-up", "close": "blind-down", "openTime": "4s",
     "closeTime": "4s", "closed": "blind-bottom"},
    {"id": "roller-door", "name": "Roller Door", "pulse": "door-opener", "travelTime": "3s", "closed": "door-closed"},
]
# A schedule this check adds: the porch light off at 23:30.
SCHEDULES = [{"id": "lights-out", "at": "23:30", "actions": [{"set": "porch", "value": False}]}]
# An automation this check adds: the blind stops when the roller door opens (it is still then).
AUTOMATIONS = [{"id": "stop-blind-with-door", "when": {"control": "roller-door", "becomes": True}, "do": [{"press": "blind-stop"}]}]
COVER_PLACEMENTS = [{"id": "blind", "control": "blind"}, {"id": "blind-stop", "control": "blind-stop"},
                    {"id": "roller-door", "control": "roller-door"}]
# What Home Assistant calls each entity: the device's name and the entity's; the fan is the main
# feature of a device of its own ("Attic Fan", in the area Attic).
FRIENDLY = {e: (f"{DEVICE_NAME} {name}" if name else "Attic Fan") for e, (_, name, _) in EXPECTED.items()}
# The HomeKit bridge this check turns on (devices.json's homekit block), with its setup code: the
# code a Home Assistant user types into HomeKit Controller's pairing form.
HOMEKIT_SETUP_CODE = "031-45-154"
# What Home Assistant's HomeKit Controller makes of the bridge: an entity per accessory's service
# (named after the accessory), an Identify button per accessory, and their states when the check
# pairs (those of controls with an MQTT entity are compared with it instead). Entity id: state.
HOMEKIT_EXPECTED = {
    "light.porch_light": None,                 # the porch placement: a Lightbulb
    "fan.attic_fan": None,                     # the fan placement: a Fan
    "switch.attic_fan": "off",                 # the fan-outlet placement: an Outlet
    "switch.garage_door": "off",               # the garage-door button: a Switch
    "switch.kitchen_light": None,              # the kitchen placement: a Switch
    "cover.living_room_blind": None,           # the blind: a Window Covering
    "switch.stop_living_room_blind": "off",    # the blind's stop button: a Switch
    "cover.roller_door": None,                 # the roller door: a Garage Door Opener
    "event.wall": "unknown",                   # the wall push-button: a Stateless Programmable Switch
    **{f"button.{name}": "unknown" for name in (
        "garage_identify", "porch_light_identify", "attic_fan_identify", "attic_fan_identify_2", "garage_door_identify",
        "kitchen_light_identify", "living_room_blind_identify", "stop_living_room_blind_identify", "roller_door_identify",
        "wall_identify")},
}
# Warnings Home Assistant logs on this test's setup whatever the integrations do.
ALLOWED_LOG_LINES = [
    r"WARNING \(MainThread\) \[homeassistant\.bootstrap\] Skipping pip installation of required modules",
    r"WARNING \(MainThread\) \[aiohttp_fast_zlib\] zlib_ng and isal are not available",
]


def press_click(event_type):
    """The `click` of a push-button's press, from its Home Assistant event type."""
    return {"single": "short"}.get(event_type, event_type)


class Failure(Exception):
    pass


def ok(text):
    print(f"  ok    {text}", flush=True)


def expect(condition, description, seen=None):
    if not condition:
        raise Failure(description + ("" if seen is None else f"; seen: {seen!r}"))
    ok(description)


def eventually(description, probe, predicate, timeout=10.0, interval=0.1):
    """Polls probe() until predicate(value) holds; returns the value, or fails with the last one."""
    deadline = time.monotonic() + timeout
    started = time.monotonic()
    while True:
        value = probe()
        if predicate(value):
            ok(f"{description} ({time.monotonic() - started:.1f} s)")
            return value
        if time.monotonic() > deadline:
            raise Failure(f"{description}: not within {timeout:.0f} s; last seen: {value!r}")
        time.sleep(interval)


class Daemon:
    """A real switchboardd with its own configuration, state directory and socket, and the CLI."""

    def __init__(self, bin_dir, work):
        self.daemon = os.path.join(bin_dir, "switchboardd")
        self.client = os.path.join(bin_dir, "switchboard")
        self.config = os.path.join(work, "devices.json")
        self.state = os.path.join(work, "state")
        self.socket = os.path.join(work, "switchboard.sock")
        self.log_path = os.path.join(work, "switchboardd.log")
        self.process = None

    def start(self):
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [self.daemon, "--simulate", "--config", self.config, "--state-dir", self.state, "--socket", self.socket],
            stdout=log, stderr=subprocess.STDOUT,
        )
        log.close()
        eventually("switchboardd answers on its socket",
                   lambda: self.process.poll() is None and subprocess.run(
                       [self.client, "--socket", self.socket, "status"], capture_output=True).returncode,
                   lambda status: status == 0)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(timeout=20)
        self.process = None
        expect(status == 0, "switchboardd stops on SIGTERM with status 0", status)

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def cli(self, *arguments):
        result = subprocess.run([self.client, "--socket", self.socket, *arguments], capture_output=True, text=True)
        if result.returncode != 0:
            raise Failure(f"switchboard {' '.join(arguments)} exited {result.returncode}: {result.stderr.strip()}")
        return result.stdout

    def center(self):
        """The placed controls' presentations from `switchboard center --json`, by placement id."""
        return {p["id"]: p for p in json.loads(self.cli("center", "--json"))}

    def log_mark(self):
        return os.path.getsize(self.log_path)

    def log_since(self, mark):
        with open(self.log_path, "rb") as log:
            log.seek(mark)
            return log.read().decode(errors="replace")


class Zigbee2MQTT:
    """Stands in for Zigbee2MQTT's kitchen light: answers each command on its /set topic with the
    state it asked for, as the real bridge does once the bulb confirms."""

    def __init__(self, port):
        self.client = MQTTClient(port, "zigbee2mqtt-stand-in")
        self.commands = []
        self.running = True
        self.client.subscribe("zigbee2mqtt/kitchen_light/set")
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        answered = 0
        while self.running:
            message = self.client.message(answered, timeout=0.5)
            if message is None:
                continue
            answered += 1
            payload = message[1]
            self.commands.append(payload)
            try:
                state = json.loads(payload)["state"]
            except (ValueError, KeyError, TypeError):
                continue
            self.report(state)

    def report(self, state):
        """The bulb's state, as Zigbee2MQTT publishes it (also when switched at the wall)."""
        self.client.publish("zigbee2mqtt/kitchen_light", json.dumps({"state": state}))

    def stop(self):
        self.running = False
        self.client.close()


class Check:
    def __init__(self, options):
        self.options = options
        self.ha = HomeAssistant("127.0.0.1", options.hass_port)
        self.daemon = Daemon(options.bin, options.work)
        self.zigbee = None
        self.version = subprocess.run([self.daemon.client, "--version"], capture_output=True, text=True,
                                      check=True).stdout.split()[1]

    # Helpers

    def state(self, entity_id):
        state = self.ha.state(entity_id)
        return state and state["state"]

    def friendly_name(self, entity_id):
        state = self.ha.state(entity_id)
        return state and state["attributes"].get("friendly_name")

    def switchboard_entities(self):
        """The MQTT platform's entities in Home Assistant's entity registry, by entity id."""
        return {e["entity_id"]: e for e in self.ha.command("config/entity_registry/list") if e["platform"] == "mqtt"}

    def device(self, identifier=f"switchboard_{NODE}"):
        devices = [d for d in self.ha.command("config/device_registry/list")
                   if ["mqtt", identifier] in d["identifiers"]]
        return devices[0] if len(devices) == 1 else devices

    def attributes(self, entity_id):
        state = self.ha.state(entity_id)
        return state and state["attributes"]

    def messages_received(self, entity_id, topic):
        """The payloads Home Assistant's MQTT integration received for an entity on a topic
        (its debug info: the most recent ones)."""
        for entity in self.ha.command("mqtt/device/debug_info", device_id=self.device_of(entity_id))["entities"]:
            if entity["entity_id"] == entity_id:
                for subscription in entity["subscriptions"]:
                    if subscription["topic"] == topic:
                        return [m["payload"] for m in subscription["messages"]]
        return []

    def device_of(self, entity_id):
        return self.switchboard_entities()[entity_id]["device_id"]

    def log_problems(self):
        """Lines of home-assistant.log at WARNING or above not in ALLOWED_LOG_LINES, and every line
        about templates or value_json."""
        text = pathlib.Path(self.options.hass_log).read_text(errors="replace")
        problems = []
        for line in text.splitlines():
            if re.search(r"Template variable (error|warning)|value_json", line):
                problems.append(line)
            elif re.match(r"\S+ \S+ (WARNING|ERROR|CRITICAL) ", line) and not any(
                    re.search(allowed, line) for allowed in ALLOWED_LOG_LINES):
                problems.append(line)
        return problems

    def expect_clean_log(self, when):
        problems = self.log_problems()
        expect(not problems, f"home-assistant.log has no warning, error or template error {when}",
               problems[:5])

    def state_changes(self, entity_ids, action, seconds, then):
        """The state_changed events of the given entities while action() runs and for `seconds`
        after, from a websocket subscription; then `then` (entity id, state): an action whose
        change must arrive, which shows that the subscription sees changes."""
        ws = WebSocket("127.0.0.1", self.options.hass_port, "/api/websocket")
        ws.receive()
        ws.send({"type": "auth", "access_token": self.ha.token})
        ws.receive()
        ws.send({"id": 1, "type": "subscribe_events", "event_type": "state_changed"})
        answer = ws.receive()
        if not answer.get("success"):
            raise Failure(f"websocket subscribe_events: {answer}")
        action()
        changes = []

        def collect(seconds, until=None):
            deadline = time.monotonic() + seconds
            while (remaining := deadline - time.monotonic()) > 0:
                ws.sock.settimeout(remaining)
                try:
                    event = ws.receive()
                except TimeoutError:
                    return
                data = event.get("event", {}).get("data", {})
                if data.get("entity_id") in entity_ids:
                    new = data.get("new_state")
                    changes.append((data["entity_id"], new and new["state"]))
                    if changes[-1] == until:
                        return

        try:
            collect(seconds)
            window = list(changes)
            then_action, expected = then
            then_action()
            collect(10, until=expected)
        finally:
            ws.close()
        return window, changes[len(window):]

    def show_entities(self):
        """Each entity as Home Assistant shows it: id, name, icon, state and attributes of its own."""
        print("  entities as Home Assistant shows them:", flush=True)
        for entity_id in sorted(self.switchboard_entities()):
            state = self.ha.state(entity_id) or {"state": None, "attributes": {}}
            attributes = state["attributes"]
            extra = {k: v for k, v in attributes.items() if k in ("value_text", "status", "options", "event_type")}
            print(f"    {entity_id:40} {attributes.get('friendly_name')!s:26} {attributes.get('icon')!s:28} "
                  f"{state['state']!s:12} {json.dumps(extra) if extra else ''}", flush=True)

    # Steps

    def set_up_home_assistant(self):
        print("Home Assistant: onboarding, token, MQTT integration", flush=True)
        self.ha.wait_for_http(time.monotonic() + 120)
        self.ha.onboard_owner("Switchboard Test", "owner", "switchboard-test-password")
        self.ha.connect_websocket()
        token = self.ha.create_long_lived_token("switchboard test")
        self.ha.connect_websocket()
        ok(f"owner onboarded, long-lived access token made ({len(token)} characters), websocket signed in with it")
        config = eventually("Home Assistant is running", lambda: self.ha.get("/api/config"),
                            lambda c: c["state"] == "RUNNING", timeout=120, interval=0.5)
        expect(config["version"] == self.options.hass_version, f"Home Assistant Core is {self.options.hass_version}",
               config["version"])
        # Home Assistant's birth message (not retained) makes the daemon announce everything again:
        # it is awaited before the daemon starts, so that nothing the checks see comes from it.
        birth = MQTTClient(self.options.broker_port, "switchboard-check-birth")
        birth.subscribe("homeassistant/status")
        entry = self.ha.configure_mqtt("127.0.0.1", self.options.broker_port)
        eventually("the MQTT integration's config entry (made through its config flow) is loaded",
                   lambda: [e["state"] for e in self.ha.command("config_entries/get", domain="mqtt")],
                   lambda states: states == ["loaded"])
        started = time.monotonic()
        online = birth.wait_for(lambda topic, payload, retained: payload == "online", timeout=120)
        birth.close()
        expect(online is not None and entry["title"] == "127.0.0.1",
               f"Home Assistant is connected to the test broker: its birth message came "
               f"({time.monotonic() - started:.1f} s)", entry)

    def start(self):
        print("Discovery: the sample devices.json as Home Assistant entities", flush=True)
        self.zigbee = Zigbee2MQTT(self.options.broker_port)
        self.daemon.start()
        registry = eventually("Home Assistant has exactly the Control Center placements' entities",
                              self.switchboard_entities, lambda r: set(r) == set(EXPECTED) | {OUTLET_ENTITY},
                              timeout=20)
        for entity_id, (unique_id, name, _) in EXPECTED.items():
            entry = registry[entity_id]
            expect((entry["unique_id"], entry["original_name"], entry["has_entity_name"]) == (unique_id, name, True),
                   f"{entity_id}: unique id {unique_id}, name {json.dumps(name)} under the device's",
                   (entry["unique_id"], entry["original_name"], entry["has_entity_name"]))
        device = self.device()
        expect(isinstance(device, dict) and (device["name"], device["manufacturer"], device["model"], device["sw_version"])
               == (DEVICE_NAME, "Switchboard", "switchboardd", self.version),
               f"the node is one device \"{DEVICE_NAME}\" (devices.json's name), Switchboard switchboardd {self.version}", device)
        fan_device = self.device(f"switchboard_{NODE}_fan")
        expect(isinstance(fan_device, dict) and (fan_device["name"], fan_device["area_id"], fan_device["via_device_id"])
               == ("Attic Fan", "attic", device["id"]),
               "the attic fan (\"area\": \"Attic\") is a device of its own in the area Attic, linked to the node's", fan_device)
        expect({e: registry[e]["device_id"] for e in EXPECTED}
               == {e: (fan_device["id"] if e == "fan.garage_pi_fan" else device["id"]) for e in EXPECTED},
               "every other entity belongs to the node's device")
        for entity_id, entry in registry.items():
            category = {"binary_sensor.garage_pi_connectivity": "diagnostic", "sensor.garage_pi_version": "diagnostic",
                        "sensor.garage_pi_rejected_messages": "diagnostic", "binary_sensor.garage_pi_problems": "diagnostic",
                        "select.garage_pi_kitchen_device": "config", "switch.garage_pi_schedule_lights_out": "config",
                        "switch.garage_pi_automation_stop_blind_with_door": "config",
                        OUTLET_ENTITY: "config"}
            expect(entry["entity_category"] == category.get(entity_id), f"{entity_id}: entity category {category.get(entity_id)}",
                   entry["entity_category"])
        outlet = self.ha.command("config/entity_registry/get", entity_id=OUTLET_ENTITY)
        seen = {k: outlet.get(k) for k in ("unique_id", "original_name", "disabled_by", "entity_category",
                                           "original_device_class", "original_icon")}
        expect(seen == {"unique_id": f"switchboard_{NODE}_fan-outlet", "original_name": "Attic Fan",
                        "disabled_by": "integration", "entity_category": "config",
                        "original_device_class": "outlet", "original_icon": "mdi:power-socket-de"}
               and self.ha.state(OUTLET_ENTITY) is None,
               f"{OUTLET_ENTITY} (the fan-outlet placement's homeAssistant block) is registered disabled by the "
               "integration, with no state, category config, device class outlet and icon mdi:power-socket-de", seen)
        states = eventually("the entities show the daemon's values, the button has never been pressed",
                            lambda: {e: self.state(e) for e in EXPECTED},
                            lambda s: s["light.garage_pi_porch"] == "off" and s["fan.garage_pi_fan"] == "off"
                            and s["button.garage_pi_garage"] == "unknown"
                            and s["select.garage_pi_kitchen_device"] == "Kitchen Light"
                            and s["lock.garage_pi_lock"] == "unlocked"
                            and s["binary_sensor.garage_pi_connectivity"] == "on"
                            and s["sensor.garage_pi_version"] == self.version
                            and s["sensor.garage_pi_rejected_messages"] == "0"
                            and s["binary_sensor.garage_pi_problems"] == "off"
                            and s["event.garage_pi_commands"] == "unknown"
                            and s["binary_sensor.garage_pi_contact"] == "off")
        for entity_id in EXPECTED:
            expect(self.friendly_name(entity_id) == FRIENDLY[entity_id],
                   f"{entity_id} is called \"{FRIENDLY[entity_id]}\"", self.friendly_name(entity_id))
            icon = EXPECTED[entity_id][2]
            expect(self.attributes(entity_id).get("icon") == icon, f"{entity_id}: icon {icon}",
                   self.attributes(entity_id).get("icon"))
        select = self.ha.state("select.garage_pi_kitchen_device")
        expect(select["attributes"]["options"] == ["Porch Light", "Kitchen Light"],
               "the select offers the devices by name: Porch Light, Kitchen Light", select["attributes"])
        fan = self.attributes("fan.garage_pi_fan")
        expect((fan.get("value_text"), fan.get("status"), fan.get("action_hint"), fan.get("stale"))
               == ("Stopped", None, "Hold to Start", False),
               "the fan's value text, status and action hint are its attributes", fan)
        triggers = self.ha.command("device_automation/trigger/list", device_id=device["id"])
        mqtt_triggers = sorted((t["type"], t["subtype"]) for t in triggers if t.get("domain") == "mqtt")
        expect(mqtt_triggers == [("button_double_press", "wall"), ("button_long_press", "button"), ("button_long_press", "wall"),
                                 ("button_short_press", "button"), ("button_short_press", "wall")],
               "the Action button's short and long press, and the wall button's short, double and long press, are device triggers",
               mqtt_triggers)
        # Unavailable, not off: the kitchen placement drives the Zigbee2MQTT light, which has sent
        # no state yet, so its presentation is stale. Home Assistant shows unknown before any
        # message, so first see that it got the daemon's.
        topic = f"switchboard/{NODE}/controls/kitchen"
        eventually("Home Assistant received the kitchen placement's presentation (value not known yet)",
                   lambda: [json.loads(p) for p in self.messages_received("switch.garage_pi_kitchen", topic)],
                   lambda messages: any(m.get("stale") for m in messages))
        eventually("the kitchen light, with no state from Zigbee2MQTT yet, is unavailable in Home Assistant, not off",
                   lambda: self.state("switch.garage_pi_kitchen"), lambda s: s == "unavailable", timeout=5)
        self.expect_clean_log("after discovery")
        self.show_entities()

    def switches(self):
        print("Switches: Home Assistant drives the daemon, the CLI shows in Home Assistant", flush=True)
        self.ha.call("light", "turn_on", entity_id="light.garage_pi_porch")
        eventually("light.turn_on on the porch light turns the daemon's porch control on (switchboard center --json)",
                   lambda: self.daemon.center()["porch"]["value"], lambda value: value is True, timeout=5)
        eventually("and Home Assistant shows it on", lambda: self.state("light.garage_pi_porch"), lambda s: s == "on", 5)
        self.ha.call("light", "turn_off", entity_id="light.garage_pi_porch")
        eventually("light.turn_off turns it off", lambda: self.daemon.center()["porch"]["value"],
                   lambda value: value is False, timeout=5)
        self.daemon.cli("on", "porch")
        eventually("switchboard on porch shows on in Home Assistant", lambda: self.state("light.garage_pi_porch"),
                   lambda s: s == "on", 5)
        expect(self.attributes("light.garage_pi_porch").get("icon") == "mdi:lightbulb",
               "its icon stays mdi:lightbulb (Home Assistant colours it by state)", self.attributes("light.garage_pi_porch"))
        self.daemon.cli("off", "porch")
        eventually("switchboard off porch shows off", lambda: self.state("light.garage_pi_porch"), lambda s: s == "off", 5)
        self.daemon.cli("toggle", "fan")
        eventually("switchboard toggle fan shows the fan on, running, with its auto-off as an attribute",
                   lambda: (self.state("fan.garage_pi_fan"), self.attributes("fan.garage_pi_fan").get("value_text"),
                            self.attributes("fan.garage_pi_fan").get("status")),
                   lambda s: s[0] == "on" and s[1] == "Running" and s[2] is not None and s[2].startswith("Off in "), 5)
        expect(self.daemon.center()["fan"]["status"] == "Off in 10:00", "and its auto-off runs in the daemon",
               self.daemon.center()["fan"]["status"])
        self.ha.call("fan", "toggle", entity_id="fan.garage_pi_fan")
        eventually("fan.toggle in Home Assistant turns the fan off again", lambda: self.daemon.center()["fan"]["value"],
                   lambda value: value is False, timeout=5)

    def zigbee_light(self):
        print("A light in Zigbee2MQTT, through the daemon", flush=True)
        self.zigbee.report("OFF")
        eventually("the bulb's first state makes the kitchen light available, off",
                   lambda: self.state("switch.garage_pi_kitchen"), lambda s: s == "off", timeout=10)
        mark = self.daemon.log_mark()
        started = time.monotonic()
        self.ha.call("switch", "turn_on", entity_id="switch.garage_pi_kitchen")
        eventually("switch.turn_on on the kitchen light reaches Zigbee2MQTT as its on payload",
                   lambda: list(self.zigbee.commands), lambda c: '{"state":"ON"}' in c, timeout=5)
        eventually("the bulb's confirmation shows the kitchen light on in Home Assistant",
                   lambda: self.state("switch.garage_pi_kitchen"), lambda s: s == "on", timeout=10)
        elapsed = time.monotonic() - started
        log = self.daemon.log_since(mark)
        expect("mqtt: kitchen ON performed" in log and "failed" not in log,
               f"the daemon performed it ({elapsed:.2f} s from the service call to Home Assistant showing on)", log)
        self.zigbee.report("OFF")
        eventually("switched off at the wall (a state from Zigbee2MQTT), it shows off in Home Assistant",
                   lambda: self.state("switch.garage_pi_kitchen"), lambda s: s == "off", timeout=5)

    def configurable(self):
        print("The configurable placement: its select chooses the device", flush=True)
        self.daemon.cli("on", "porch")
        self.ha.call("select", "select_option", entity_id="select.garage_pi_kitchen_device", option="Porch Light")
        eventually("select.select_option \"Porch Light\" makes the kitchen placement drive the porch light",
                   lambda: self.daemon.center()["kitchen"]["title"], lambda t: t == "Porch Light", timeout=5)
        eventually("the switch shows the porch light's value, the select porch",
                   lambda: (self.state("switch.garage_pi_kitchen"), self.state("select.garage_pi_kitchen_device")),
                   lambda s: s == ("on", "Porch Light"), timeout=5)
        eventually("and the switch is named after the porch light",
                   lambda: self.friendly_name("switch.garage_pi_kitchen"), lambda n: n == f"{DEVICE_NAME} Porch Light", 5)
        self.daemon.cli("configure", "kitchen", "--device", "kitchen")
        eventually("switchboard configure kitchen --device kitchen shows in the select, the name and the value",
                   lambda: (self.state("select.garage_pi_kitchen_device"), self.friendly_name("switch.garage_pi_kitchen"),
                            self.state("switch.garage_pi_kitchen")),
                   lambda s: s == ("Kitchen Light", f"{DEVICE_NAME} Kitchen Light", "off"), timeout=5)
        self.daemon.cli("off", "porch")

    def garage_door(self):
        print("The garage-door button (requires authentication)", flush=True)
        mark = self.daemon.log_mark()
        self.ha.call("button", "press", entity_id="button.garage_pi_garage")
        eventually("button.press while Switchboard is unlocked pulses the opener: the daemon shows \"Door moving\"",
                   lambda: self.daemon.center()["garage"]["status"], lambda s: s == "Door moving", timeout=5)
        expect("mqtt: garage PRESS performed" in self.daemon.log_since(mark), "and logs it performed",
               self.daemon.log_since(mark))
        eventually("and the press is a command event, performed",
                   lambda: self.attributes("event.garage_pi_commands"),
                   lambda a: (a.get("event_type"), a.get("control"), a.get("command")) == ("performed", "garage", "PRESS"), 5)
        eventually("the status clears", lambda: self.daemon.center()["garage"]["status"], lambda s: s is None, 10)
        self.ha.call("lock", "lock", entity_id="lock.garage_pi_lock")
        eventually("lock.lock on the node's lock locks Switchboard (switchboard status) and shows locked",
                   lambda: (self.daemon.cli("status").splitlines()[0], self.state("lock.garage_pi_lock")),
                   lambda s: s == (f"node {NODE}, locked", "locked"), 5)
        mark = self.daemon.log_mark()
        self.ha.call("button", "press", entity_id="button.garage_pi_garage")
        refusal = "mqtt: garage PRESS refused: control \"garage\" requires authentication: Switchboard is locked"
        eventually("button.press while Switchboard is locked is refused by the daemon",
                   lambda: self.daemon.log_since(mark), lambda log: refusal in log, timeout=5)
        # A press that went ahead would say so once its 500 ms pulse ended.
        time.sleep(1.5)
        expect(self.daemon.center()["garage"]["status"] is None and "performed" not in self.daemon.log_since(mark),
               "and the opener is not pulsed (1.5 s later: no \"Door moving\", nothing performed)",
               self.daemon.log_since(mark))
        refused = self.attributes("event.garage_pi_commands")
        expect((refused.get("event_type"), refused.get("control"), refused.get("code"), refused.get("error"))
               == ("refused", "garage", "authenticationRequired",
                   "control \"garage\" requires authentication: Switchboard is locked; unlock it (switchboard unlock) "
                   "or use the local CLI"),
               "the refusal is seen in Home Assistant: a command event \"refused\" with the daemon's reason", refused)
        self.ha.call("lock", "unlock", entity_id="lock.garage_pi_lock")
        eventually("lock.unlock unlocks it", lambda: (self.daemon.cli("status").splitlines()[0], self.state("lock.garage_pi_lock")),
                   lambda s: s == (f"node {NODE}, unlocked", "unlocked"), 5)

    def contact(self):
        print("An input: the garage door's contact", flush=True)
        expect(self.attributes("binary_sensor.garage_pi_contact").get("device_class") == "garage_door",
               "the contact is a binary sensor of device class garage_door (its deviceClass)",
               self.attributes("binary_sensor.garage_pi_contact"))
        self.daemon.cli("input", "contact", "active")
        eventually("switchboard input contact active (the door opens, on the simulated chip) shows it on",
                   lambda: self.state("binary_sensor.garage_pi_contact"), lambda s: s == "on", 5)
        self.daemon.cli("input", "contact", "inactive")
        eventually("and closed, off", lambda: self.state("binary_sensor.garage_pi_contact"), lambda s: s == "off", 5)

    def covers(self):
        print("Covers: a blind on two interlocked relays, a roller door on a pulse and a reed", flush=True)
        blind, door = "cover.garage_pi_blind", "cover.garage_pi_roller_door"
        expect((self.attributes(blind).get("device_class"), self.attributes(door).get("device_class")) == ("blind", "garage"),
               "the blind is a cover of device class blind, the roller door one of class garage",
               (self.attributes(blind), self.attributes(door)))
        expect(self.attributes(blind).get("current_position") is None,
               "a blind whose position is not known yet (no end stop active, nothing saved) has no position, not 0",
               self.attributes(blind))
        self.daemon.cli("input", "blind-bottom", "active")
        eventually("switchboard input blind-bottom active (its closed end stop) shows the blind closed, at 0 %",
                   lambda: (self.state(blind), self.attributes(blind).get("current_position")), lambda s: s == ("closed", 0), 5)
        mark = self.daemon.log_mark()
        self.ha.call("cover", "open_cover", entity_id=blind)
        eventually("cover.open_cover runs it open: opening, its up relay on",
                   lambda: (self.state(blind), "output blind-up: on" in self.daemon.cli("status")), lambda s: s == ("opening", True), 5)
        expect("mqtt: cover blind OPEN performed" in self.daemon.log_since(mark), "through the placed toggle, logged performed",
               self.daemon.log_since(mark))
        self.daemon.cli("input", "blind-bottom", "inactive")
        time.sleep(1)
        self.ha.call("cover", "stop_cover", entity_id=blind)
        # Home Assistant's covers have no stopped state: a cover stopped part-way is open, at its position.
        eventually("cover.stop_cover stops it part-way: open at its estimated position, both relays off",
                   lambda: (self.state(blind), self.attributes(blind).get("current_position"), self.daemon.cli("status")),
                   lambda s: s[0] == "open" and isinstance(s[1], int) and 0 < s[1] < 100
                   and "output blind-up: off" in s[2] and "output blind-down: off" in s[2], 5)
        self.ha.call("cover", "set_cover_position", entity_id=blind, position=0)
        eventually("cover.set_cover_position 0 closes it", lambda: self.state(blind), lambda s: s == "closing", 5)
        self.daemon.cli("input", "blind-bottom", "active")
        eventually("and its end stop reached stops it closed, at 0 %",
                   lambda: (self.state(blind), self.attributes(blind).get("current_position"), "output blind-down: off" in self.daemon.cli("status")),
                   lambda s: s == ("closed", 0, True), 5)
        self.daemon.cli("input", "door-closed", "active")
        eventually("the roller door's reed says closed", lambda: self.state(door), lambda s: s == "closed", 5)
        mark = self.daemon.log_mark()
        self.ha.call("cover", "open_cover", entity_id=door)
        eventually("cover.open_cover pulses its opener", lambda: self.daemon.log_since(mark),
                   lambda log: "mqtt: cover roller-door OPEN performed" in log, 5)
        time.sleep(1)
        expect(self.state(door) == "closed", "the pulse alone shows nothing moving: still closed", self.state(door))
        self.daemon.cli("input", "door-closed", "inactive")
        eventually("the reed seeing it leave shows it opening", lambda: self.state(door), lambda s: s == "opening", 5)
        eventually("and open after its travel time", lambda: self.state(door), lambda s: s == "open", 8)
        time.sleep(1)
        self.expect_clean_log("after the covers")

    def homekit_entities(self):
        """The HomeKit Controller platform's entities in Home Assistant's entity registry, by entity id."""
        return {e["entity_id"]: e for e in self.ha.command("config/entity_registry/list")
                if e["platform"] == "homekit_controller"}

    def homekit(self):
        print("HomeKit: Home Assistant's HomeKit Controller pairs with the node's bridge, as a user adds it", flush=True)
        hkid = json.loads(pathlib.Path(self.daemon.state, "homekit.json").read_text())["pairingIdentifier"]
        flows = eventually(
            f"Home Assistant's zeroconf found the bridge (_hap._tcp from avahi-daemon): a discovered HomeKit Controller flow for {hkid}",
            lambda: [f for f in self.ha.command("config_entries/flow/progress") if f["handler"] == "homekit_controller"],
            lambda f: len(f) == 1 and f[0]["context"]["source"] == "zeroconf" and f[0]["context"]["unique_id"] == hkid.lower()
            and f[0]["context"]["title_placeholders"] == {"name": DEVICE_NAME, "category": "Bridge"}, timeout=20)
        path = f"/api/config/config_entries/flow/{flows[0]['flow_id']}"
        started = time.monotonic()
        form = self.ha.get(path)
        expect((form.get("type"), form.get("step_id"), [field["name"] for field in form.get("data_schema", [])])
               == ("form", "pair", ["pairing_code"]),
               f"opened (as the UI does), it asks for the setup code of \"{DEVICE_NAME}\"", form)
        result = self.ha.post(path, {"pairing_code": HOMEKIT_SETUP_CODE})
        expect((result.get("type"), result.get("title"), result.get("result", {}).get("state"))
               == ("create_entry", DEVICE_NAME, "loaded"),
               f"the setup code {HOMEKIT_SETUP_CODE} pairs it: a loaded config entry \"{DEVICE_NAME}\" "
               f"({time.monotonic() - started:.1f} s)", result)
        status = self.daemon.cli("status")
        expect(f"homekit: serving on port {self.options.homekit_port}, 1 controller paired" in status,
               "switchboard status: the bridge has 1 controller paired",
               [line for line in status.splitlines() if line.startswith("homekit")])
        eventually("Home Assistant has an entity for each accessory's service, and an Identify button for each accessory",
                   lambda: sorted(self.homekit_entities()), lambda r: r == sorted(HOMEKIT_EXPECTED), timeout=10)
        registry = self.homekit_entities()
        expect(all(registry[e]["unique_id"].startswith(f"{hkid}_") for e in HOMEKIT_EXPECTED),
               f"every one of them is the bridge's ({hkid}_<aid>_<iid>)",
               sorted(registry[e]["unique_id"] for e in HOMEKIT_EXPECTED))
        # The same controls as the MQTT entities: the same states.
        mqtt = {"light.porch_light": "light.garage_pi_porch", "fan.attic_fan": "fan.garage_pi_fan",
                "switch.kitchen_light": "switch.garage_pi_kitchen", "cover.living_room_blind": "cover.garage_pi_blind",
                "cover.roller_door": "cover.garage_pi_roller_door"}
        expected = {e: self.state(mqtt[e]) if e in mqtt else state for e, state in HOMEKIT_EXPECTED.items()}
        eventually("their states are the controls' (those with an MQTT entity too: the same as it)",
                   lambda: {e: self.state(e) for e in HOMEKIT_EXPECTED}, lambda s: s == expected, timeout=10)
        print("  HomeKit entities as Home Assistant shows them:", flush=True)
        for entity_id in sorted(HOMEKIT_EXPECTED):
            state = self.ha.state(entity_id)
            print(f"    {entity_id:42} {state['attributes'].get('friendly_name')!s:32} {state['state']}", flush=True)
        # HomeKit Controller subscribes to the accessories' events 0.25 s after their entities are
        # added (SUBSCRIBE_COOLDOWN in its const.py), one PUT per accessory; a change before that
        # would reach it only by its poll, once a minute.
        time.sleep(1)
        self.ha.call("light", "turn_on", entity_id="light.porch_light")
        eventually("light.turn_on on HomeKit's porch light switches the porch relay on (switchboard status)",
                   lambda: "output porch: on" in self.daemon.cli("status"), lambda on: on, timeout=5)
        eventually("and Home Assistant shows it on", lambda: self.state("light.porch_light"), lambda s: s == "on", 5)
        self.ha.call("light", "turn_off", entity_id="light.porch_light")
        eventually("light.turn_off switches it off", lambda: "output porch: off" in self.daemon.cli("status"),
                   lambda off: off, timeout=5)
        self.ha.call("switch", "turn_on", entity_id="switch.attic_fan")
        eventually("switch.turn_on on the fan's outlet (the fan-outlet placement) switches the fan relay on",
                   lambda: "output fan: on" in self.daemon.cli("status"), lambda on: on, timeout=5)
        eventually("and HomeKit's fan shows on too (an event of the bridge)", lambda: self.state("fan.attic_fan"),
                   lambda s: s == "on", 5)
        # Home Assistant polls HomeKit accessories once a minute: a change within seconds is an event.
        for command, state in (("on", "on"), ("off", "off")):
            self.daemon.cli(command, "porch")
            eventually(f"switchboard {command} porch reaches HomeKit's porch light, {state} (a HAP event)",
                       lambda: self.state("light.porch_light"), lambda s: s == state, 5)
        self.daemon.cli("off", "fan")
        eventually("switchboard off fan: HomeKit's fan and outlet show off",
                   lambda: (self.state("fan.attic_fan"), self.state("switch.attic_fan")), lambda s: s == ("off", "off"), 5)
        self.expect_clean_log("after HomeKit")

    def schedules(self):
        print("A schedule: a configuration switch that pauses and resumes it", flush=True)
        switch = "switch.garage_pi_schedule_lights_out"
        expect(self.state(switch) == "on", "the schedule runs: its switch is on", self.state(switch))
        expect(self.attributes(switch).get("paused") is False and str(self.attributes(switch).get("next", "")).endswith(" UTC"),
               "its next run is an attribute", self.attributes(switch))
        self.ha.call("switch", "turn_off", entity_id=switch)
        eventually("switch.turn_off pauses it, as switchboard schedule pause does",
                   lambda: (self.state(switch), self.daemon.cli("status")),
                   lambda s: s[0] == "off" and "schedule lights-out: 23:30: off porch; paused; last none yet" in s[1], 5)
        self.ha.call("switch", "turn_on", entity_id=switch)
        eventually("switch.turn_on resumes it", lambda: (self.state(switch), self.daemon.cli("status")),
                   lambda s: s[0] == "on" and "schedule lights-out: 23:30: off porch; next " in s[1], 5)
        automation = "switch.garage_pi_automation_stop_blind_with_door"
        expect(self.state(automation) == "on", "an automation has its switch too, on", self.state(automation))
        self.ha.call("switch", "turn_off", entity_id=automation)
        eventually("switch.turn_off pauses the automation", lambda: (self.state(automation), self.daemon.cli("status")),
                   lambda s: s[0] == "off" and "automation stop-blind-with-door: when roller-door becomes on: press blind-stop; paused; " in s[1], 5)
        self.ha.call("switch", "turn_on", entity_id=automation)
        eventually("switch.turn_on resumes it", lambda: self.state(automation), lambda s: s == "on", 5)

    def wall_button(self):
        print("A wall push-button: its presses as events", flush=True)
        attributes = self.attributes("event.garage_pi_button_wall")
        expect((attributes.get("device_class"), attributes.get("event_types")) == ("button", ["single", "double", "long"]),
               "the wall button is an event entity of device class button, with the event types single, double and long",
               attributes)
        for press, event_type in ((["--hold", "100ms"], "single"), (["--double"], "double"), (["--hold", "1s"], "long")):
            before = self.state("event.garage_pi_button_wall")
            self.daemon.cli("button", "wall", *press)
            seen = eventually(f"switchboard button wall {' '.join(press)} is a \"{event_type}\" event in Home Assistant",
                              lambda: (self.state("event.garage_pi_button_wall"), self.attributes("event.garage_pi_button_wall")),
                              lambda s: s[0] != before and s[1].get("event_type") == event_type, 5)
            expect(seen[1].get("click") == press_click(event_type),
                   "the event carries the press as the node published it", seen[1])

    def diagnostics(self):
        print("Diagnostics: rejected messages", flush=True)
        client = MQTTClient(self.options.broker_port, "switchboard-check-rejects")
        for _ in range(2):
            client.publish(f"switchboard/{NODE}/controls/porch/set", "SIDEWAYS")
        client.close()
        eventually("two malformed commands show as 2 rejected messages",
                   lambda: self.state("sensor.garage_pi_rejected_messages"), lambda s: s == "2", 5)

    def placements(self):
        print("Placements added and removed at runtime", flush=True)
        self.daemon.cli("add", "fan", "--id", "fan2")
        eventually("switchboard add fan --id fan2 adds switch.garage_pi_fan2 at once",
                   lambda: (self.state("switch.garage_pi_fan2"), self.friendly_name("switch.garage_pi_fan2")),
                   lambda s: s == ("off", f"{DEVICE_NAME} Attic Fan"), timeout=5)
        for placement, entities in [("fan2", ["switch.garage_pi_fan2"]),
                                    ("kitchen", ["switch.garage_pi_kitchen", "select.garage_pi_kitchen_device"])]:
            self.daemon.cli("remove", placement)
            eventually(f"switchboard remove {placement} removes {' and '.join(entities)} from Home Assistant",
                       lambda: [e for e in entities if self.ha.state(e) is not None], lambda left: not left, timeout=5)
            eventually("and from its entity registry (no ghost)",
                       lambda: [e for e in entities if e in self.switchboard_entities()], lambda left: not left, timeout=5)
        # Home Assistant would log a template error within moments of an empty state message.
        time.sleep(1)
        self.expect_clean_log("after the removals")

    def reload(self):
        print("A reload that changes nothing", flush=True)
        entities = set(EXPECTED) - {"switch.garage_pi_kitchen", "select.garage_pi_kitchen_device"}
        mark = self.daemon.log_mark()
        changes, after = self.state_changes(entities, lambda: self.daemon.process.send_signal(signal.SIGHUP), 3,
                                            then=(lambda: self.daemon.cli("on", "porch"), ("light.garage_pi_porch", "on")))
        expect("configuration 2 serving" in self.daemon.log_since(mark), "SIGHUP: the daemon serves the reloaded file",
               self.daemon.log_since(mark))
        expect(changes == [], "no entity changed state in Home Assistant within 3 s (none went unavailable)", changes)
        expect(after == [("light.garage_pi_porch", "on")],
               "while the same subscription saw switchboard on porch right after", after)

    def availability(self):
        print("Availability, and a placement removed while the daemon was down", flush=True)
        expect(self.state("light.garage_pi_porch") == "on", "the porch light is on", self.state("light.garage_pi_porch"))
        self.daemon.stop()
        remaining = ["light.garage_pi_porch", "fan.garage_pi_fan", "button.garage_pi_garage", "lock.garage_pi_lock",
                     "sensor.garage_pi_version"]
        eventually("stopping the daemon makes its entities unavailable",
                   lambda: {e: self.state(e) for e in remaining}, lambda s: set(s.values()) == {"unavailable"}, 10)
        expect(self.state("binary_sensor.garage_pi_connectivity") == "off", "and its broker connection shows off",
               self.state("binary_sensor.garage_pi_connectivity"))
        configuration = json.loads(pathlib.Path(self.daemon.config).read_text())
        configuration["placements"] = [p for p in configuration["placements"] if p["id"] != "fan"]
        pathlib.Path(self.daemon.config).write_text(json.dumps(configuration, indent=2))
        self.daemon.start()
        eventually("started again (without the fan placement), they are available with their states",
                   lambda: (self.state("light.garage_pi_porch"), self.state("button.garage_pi_garage"),
                            self.state("binary_sensor.garage_pi_connectivity")),
                   lambda s: s[0] == "on" and s[1] not in ("unavailable", None) and s[2] == "on", timeout=10)
        eventually("the fan placement removed while the daemon was down is gone from Home Assistant, with its device",
                   lambda: (self.ha.state("fan.garage_pi_fan"), "fan.garage_pi_fan" in self.switchboard_entities(),
                            self.device(f"switchboard_{NODE}_fan")),
                   lambda s: s == (None, False, []), timeout=10)
        kept = {"light.garage_pi_porch", "button.garage_pi_garage", OUTLET_ENTITY} | {e for e in EXPECTED if e.split(".")[1].startswith(
            ("garage_pi_lock", "garage_pi_connectivity", "garage_pi_version", "garage_pi_rejected", "garage_pi_problems", "garage_pi_commands",
             "garage_pi_contact", "garage_pi_button_wall", "garage_pi_blind", "garage_pi_roller_door", "garage_pi_door_closed",
             "garage_pi_schedule_lights_out", "garage_pi_automation_stop_blind_with_door"))}
        expect(set(self.switchboard_entities()) == kept,
               "Home Assistant keeps exactly the porch light's, the fan outlet's and the garage door's entities, the wall button's, the covers', the schedule's and the node's own",
               sorted(self.switchboard_entities()))
        time.sleep(1)
        self.expect_clean_log("at the end")
        log = self.daemon.log_since(0)
        expect("another client wrote" not in log and "ignored a message" in log,
               "the daemon saw no other client write its own topics (Home Assistant does not), only the two malformed commands",
               [line for line in log.splitlines() if "another client" in line or "ignored" in line])

    def problems(self):
        print("Problems: an unreadable state file", flush=True)
        self.daemon.stop()
        state = os.path.join(self.daemon.state, "state.json")
        pathlib.Path(state).write_text("garbage")
        self.daemon.start()
        seen = eventually("started from an unreadable state file, the node has a problem",
                          lambda: (self.state("binary_sensor.garage_pi_problems"),
                                   self.attributes("binary_sensor.garage_pi_problems").get("problems")),
                          lambda s: s[0] == "on" and isinstance(s[1], list) and len(s[1]) == 1, 10)
        expect(seen[1][0].startswith(f"state: state file {state} is not a Switchboard state file"),
               "the problem is the state file, named, as switchboard status says it", seen[1])

    def run(self):
        try:
            self.set_up_home_assistant()
            self.start()
            self.switches()
            self.zigbee_light()
            self.configurable()
            self.garage_door()
            self.diagnostics()
            self.contact()
            self.wall_button()
            self.covers()
            self.schedules()
            self.homekit()
            self.placements()
            self.reload()
            self.availability()
            self.problems()
            self.daemon.stop()
        finally:
            self.daemon.kill()
            if self.zigbee:
                self.zigbee.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hass-port", type=int, required=True)
    parser.add_argument("--hass-log", required=True, help="home-assistant.log, as seen from here")
    parser.add_argument("--hass-version", required=True)
    parser.add_argument("--broker-port", type=int, required=True)
    parser.add_argument("--homekit-port", type=int, required=True, help="the port of the node's HomeKit bridge")
    parser.add_argument("--bin", required=True, help="the folder of switchboardd and switchboard")
    parser.add_argument("--work", required=True, help="a folder for the daemon's configuration and state")
    parser.add_argument("--sample", required=True, help="the sample devices.json")
    options = parser.parse_args()
    # SIGTERM (the test script's cleanup) ends the run through the finally blocks.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    configuration = json.loads(pathlib.Path(options.sample).read_text())
    configuration.pop("$schema", None)
    configuration["mqtt"].update(host="127.0.0.1", port=options.broker_port)
    configuration["devices"].append(CONTACT)
    configuration["placements"].append(OUTLET)
    configuration.setdefault("buttons", []).append(WALL)
    configuration["devices"] += COVER_DEVICES
    configuration.setdefault("interlocks", []).append(COVER_INTERLOCK)
    configuration["covers"] = COVERS
    configuration["placements"] += COVER_PLACEMENTS
    configuration["schedules"] = SCHEDULES
    configuration["automations"] = AUTOMATIONS
    configuration["homekit"] = {"port": options.homekit_port, "setupCode": HOMEKIT_SETUP_CODE}
    pathlib.Path(options.work, "devices.json").write_text(json.dumps(configuration, indent=2))

    try:
        Check(options).run()
    except Failure as failure:
        print(f"  FAIL  {failure}", flush=True)
        return 1
    print("switchboard Home Assistant: every check passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
