"""A Home Assistant client in the standard library only: the REST API, the websocket API (RFC 6455
framing over a plain socket, text frames, no extensions), onboarding of the owner, and the MQTT
integration's config flow. Used by check.py."""

import base64
import hashlib
import json
import os
import socket
import struct
import time
import urllib.error
import urllib.parse
import urllib.request


class HTTPError(Exception):
    def __init__(self, method, path, status, body):
        super().__init__(f"{method} {path}: HTTP {status}: {body[:300]}")
        self.status = status
        self.body = body


class WebSocket:
    """One websocket connection: text messages as JSON, pings answered."""

    GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    def __init__(self, host, port, path, timeout=30):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("websocket: connection closed during the handshake")
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        if not lines[0].startswith("HTTP/1.1 101"):
            raise ConnectionError(f"websocket: handshake refused: {lines[0]}")
        accept = base64.b64encode(hashlib.sha1((key + self.GUID).encode()).digest()).decode()
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        if headers.get("sec-websocket-accept") != accept:
            raise ConnectionError("websocket: wrong Sec-WebSocket-Accept")

    def _read(self, count):
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("websocket: connection closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def _send_frame(self, opcode, payload):
        header = bytes([0x80 | opcode])
        length = len(payload)
        if length < 126:
            header += bytes([0x80 | length])
        elif length < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", length)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", length)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def send(self, message):
        self._send_frame(0x1, json.dumps(message).encode())

    def receive(self):
        message = b""
        while True:
            first, second = self._read(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", self._read(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", self._read(8))
            if second & 0x80:
                mask = self._read(4)
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(self._read(length)))
            else:
                payload = self._read(length)
            if opcode == 0x9:  # ping
                self._send_frame(0xA, payload)
                continue
            if opcode == 0x8:
                raise ConnectionError("websocket: closed by the server")
            if opcode in (0x0, 0x1, 0x2):
                message += payload
                if first & 0x80:
                    return json.loads(message)

    def close(self):
        try:
            self._send_frame(0x8, b"")
        except OSError:
            pass
        self.sock.close()


class HomeAssistant:
    def __init__(self, host, port):
        self.host, self.port = host, port
        self.base = f"http://{host}:{port}"
        self.client_id = f"{self.base}/"
        self.token = None
        self.ws = None
        self.next_id = 1

    # REST

    def request(self, method, path, body=None, form=None, auth=True, timeout=30):
        headers = {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        elif form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if auth:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                text = response.read().decode()
                return json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            raise HTTPError(method, path, error.code, error.read().decode(errors="replace")) from None

    def get(self, path, **options):
        return self.request("GET", path, **options)

    def post(self, path, body=None, **options):
        return self.request("POST", path, body=body if body is not None else {}, **options)

    def state(self, entity_id):
        """The entity's state object, or None when Home Assistant has no such entity."""
        try:
            return self.get(f"/api/states/{entity_id}")
        except HTTPError as error:
            if error.status == 404:
                return None
            raise

    def states(self):
        return {s["entity_id"]: s for s in self.get("/api/states")}

    def call(self, domain, service, **data):
        return self.post(f"/api/services/{domain}/{service}", data)

    # Websocket

    def connect_websocket(self):
        self.ws = WebSocket(self.host, self.port, "/api/websocket")
        hello = self.ws.receive()
        assert hello["type"] == "auth_required", hello
        self.ws.send({"type": "auth", "access_token": self.token})
        answer = self.ws.receive()
        if answer["type"] != "auth_ok":
            raise ConnectionError(f"websocket authentication failed: {answer}")

    def command(self, type_, **fields):
        """One websocket command; its result, or an exception with Home Assistant's error."""
        identifier = self.next_id
        self.next_id += 1
        self.ws.send({"id": identifier, "type": type_, **fields})
        while True:
            answer = self.ws.receive()
            if answer.get("id") == identifier and answer.get("type") == "result":
                if not answer["success"]:
                    raise RuntimeError(f"websocket {type_}: {answer['error']}")
                return answer["result"]

    # Setup

    def wait_for_http(self, deadline):
        while True:
            try:
                return self.get("/api/onboarding", auth=False, timeout=5)
            except (OSError, HTTPError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.25)

    def onboard_owner(self, name, username, password):
        """Creates the owner through onboarding; signs in with its authorization code."""
        created = self.post("/api/onboarding/users", {
            "client_id": self.client_id, "name": name, "username": username,
            "password": password, "language": "en",
        }, auth=False)
        tokens = self.request("POST", "/auth/token", form={
            "grant_type": "authorization_code", "code": created["auth_code"], "client_id": self.client_id,
        }, auth=False)
        self.token = tokens["access_token"]
        return tokens

    def create_long_lived_token(self, name):
        """A long-lived access token (websocket `auth/long_lived_access_token`); used from then on."""
        self.token = self.command("auth/long_lived_access_token", client_name=name, lifespan=1)
        return self.token

    def configure_mqtt(self, host, port):
        """Adds the MQTT integration through its config flow, as the UI does."""
        flow = self.post("/api/config/config_entries/flow", {"handler": "mqtt", "show_advanced_options": False})
        if flow.get("type") != "form" or flow.get("step_id") != "broker":
            raise RuntimeError(f"MQTT config flow: expected the broker form, got {flow}")
        result = self.post(f"/api/config/config_entries/flow/{flow['flow_id']}", {"broker": host, "port": port})
        if result.get("type") != "create_entry":
            raise RuntimeError(f"MQTT config flow: expected an entry, got {result}")
        return result["result"]
