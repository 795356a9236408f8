"""HAP-python 5.0 serving one Switch accessory (On) on loopback, the accessory that
`switchboard-bench homekit` measures beside switchboardd's bridge through the same controller.

    python hap-python-switch.py PORT SETUP_CODE STATE_FILE

A controller's write of On calls `switch`, which sets `relay`: what switching the relay is to this
process. Lines on standard input act from outside, as the CLI does for switchboardd:
  toggle      flips On with set_value: HAP-python's own notify, which holds a Switch's event up to
              0.5 s to coalesce changes (EVENT_COALESCE_TIME_WINDOW)
  toggle-now  flips On and sends the event at once (HAP-python's immediate publish, as it does for
              buttons), the floor of its event path
  relay       prints "relay on" or "relay off"
Each is answered with a line ("done", or the relay's state). Prints "ready" once it serves;
standard input's end or SIGTERM stops it.
"""

import logging
import signal
import sys

from pyhap.accessory import Accessory
from pyhap.accessory_driver import AccessoryDriver
from pyhap.const import CATEGORY_SWITCH


class NoAdvertiser:
    """Stands in for python-zeroconf's AsyncZeroconf, which the driver advertises _hap._tcp with.
    The controller is given the host and port, so nothing needs to be found: this keeps the
    benchmark off the machine's network (multicast on every interface) and out of zeroconf's
    probing, which delays the start by seconds, as switchboardd's bench daemon has no D-Bus for
    Avahi either."""

    async def async_register_service(self, *arguments, **options):
        pass

    async def async_update_service(self, *arguments, **options):
        pass

    async def async_unregister_service(self, *arguments, **options):
        pass

    async def async_close(self):
        pass


class Switch(Accessory):
    """One Switch service; `relay` is the output a write switches."""

    category = CATEGORY_SWITCH

    def __init__(self, *arguments, **options):
        super().__init__(*arguments, **options)
        self.relay = False
        self.on = self.add_preload_service("Switch").configure_char("On", value=False, setter_callback=self.switch)

    def switch(self, value):
        self.relay = bool(value)

    async def run(self):
        # The driver runs this once it serves (after its HTTP server listens).
        print("ready", flush=True)


def main(port, code, state_file):
    logging.basicConfig(level=logging.WARNING)
    driver = AccessoryDriver(address="127.0.0.1", port=port, pincode=code.encode(), persist_file=state_file,
                             mac="0E:4C:7A:11:9B:D2", async_zeroconf_instance=NoAdvertiser())
    switch = Switch(driver, "Bench Switch")
    driver.add_accessory(switch)

    def command():
        line = sys.stdin.readline()
        if not line:  # the benchmark went away
            driver.loop.remove_reader(sys.stdin.fileno())
            driver.stop()
            return
        word = line.strip()
        if word in ("toggle", "toggle-now"):
            switch.relay = not switch.relay
            switch.on.set_value(switch.relay, should_notify=word == "toggle")
            if word == "toggle-now":
                switch.publish(switch.on.value, switch.on, None, True)
            print("done", flush=True)
        elif word == "relay":
            print("relay on" if switch.relay else "relay off", flush=True)

    driver.loop.add_reader(sys.stdin.fileno(), command)
    signal.signal(signal.SIGTERM, driver.signal_handler)
    driver.start()


main(int(sys.argv[1]), sys.argv[2], sys.argv[3])
