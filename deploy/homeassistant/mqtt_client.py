"""A minimal MQTT 3.1.1 client in the standard library only, for check.py: QoS 0 publish and
subscribe on a plain socket, messages collected by a reader thread. Subscribing returns once the
broker acknowledged it, so nothing published afterwards is missed."""

import os
import socket
import struct
import threading
import time


def _length(value):
    encoded = bytearray()
    while True:
        byte, value = value % 128, value // 128
        encoded.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(encoded)


def _string(text):
    data = text.encode()
    return struct.pack("!H", len(data)) + data


class MQTTClient:
    def __init__(self, port, client_id=None, host="127.0.0.1"):
        self.sock = socket.create_connection((host, port), timeout=10)
        self.lock = threading.Condition()
        self.messages = []  # (topic, payload text, retained)
        self.acknowledged = set()
        self.next_id = 1
        client_id = client_id or f"switchboard-check-{os.getpid()}-{id(self) % 10000}"
        # Clean session, no keepalive (the broker never drops an idle test client).
        self._send(0x10, _string("MQTT") + bytes([4, 0x02]) + struct.pack("!H", 0) + _string(client_id))
        first, body = self._read_packet()
        if first != 0x20 or body[1] != 0:
            raise ConnectionError(f"MQTT: connection refused ({body!r})")
        self.sock.settimeout(None)
        threading.Thread(target=self._serve, daemon=True).start()

    def _send(self, first, body):
        self.sock.sendall(bytes([first]) + _length(len(body)) + body)

    def _read_exactly(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise ConnectionError("MQTT: connection closed")
            data += chunk
        return data

    def _read_packet(self):
        first = self._read_exactly(1)[0]
        length, shift = 0, 0
        while True:
            byte = self._read_exactly(1)[0]
            length |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        return first, self._read_exactly(length)

    def _serve(self):
        try:
            while True:
                first, body = self._read_packet()
                with self.lock:
                    if first & 0xF0 == 0x30:  # PUBLISH (a packet id follows the topic above QoS 0)
                        (topic_length,) = struct.unpack("!H", body[:2])
                        topic = body[2:2 + topic_length].decode()
                        offset = 2 + topic_length + (2 if (first >> 1) & 3 else 0)
                        self.messages.append((topic, body[offset:].decode(errors="replace"), bool(first & 1)))
                    elif first & 0xF0 == 0x90:  # SUBACK
                        self.acknowledged.add(struct.unpack("!H", body[:2])[0])
                    self.lock.notify_all()
        except (OSError, ConnectionError):
            pass

    def subscribe(self, topic_filter, timeout=10):
        with self.lock:
            packet_id = self.next_id
            self.next_id += 1
        self._send(0x82, struct.pack("!H", packet_id) + _string(topic_filter) + bytes([0]))
        with self.lock:
            if not self.lock.wait_for(lambda: packet_id in self.acknowledged, timeout):
                raise TimeoutError(f"MQTT: no SUBACK for {topic_filter} within {timeout} s")

    def publish(self, topic, payload, retain=False):
        self._send(0x30 | (1 if retain else 0), _string(topic) + payload.encode())

    def wait_for(self, predicate, timeout):
        """The first collected message (topic, payload, retained) for which predicate holds, or None."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                for message in self.messages:
                    if predicate(*message):
                        return message
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self.lock.wait(remaining)

    def message(self, index, timeout):
        """The index-th collected message (topic, payload, retained), waiting for it; or None."""
        with self.lock:
            if self.lock.wait_for(lambda: len(self.messages) > index, timeout):
                return self.messages[index]
            return None

    def close(self):
        try:
            self._send(0xE0, b"")
        except OSError:
            pass
        self.sock.close()
