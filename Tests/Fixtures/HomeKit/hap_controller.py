"""What the aiohomekit fixtures share: driving aiohomekit's pairing state machines over a
connection (pair-setup with the setup code; pair-verify on a plain socket), and the owner a
SecureHomeKitConnection reports to."""

import asyncio
import uuid

from aiohomekit.controller.ip.connection import HomeKitConnection
from aiohomekit.protocol import get_session_keys, perform_pair_setup_part1, perform_pair_setup_part2
from aiohomekit.protocol.tlv import TLV


async def exchange(machine, connection, target):
    """Runs one of aiohomekit's pairing generators (pair-setup, pair-verify) against `target`."""
    request, expected = machine.send(None)
    while True:
        response = await connection.post_tlv(target, body=request, expected=expected)
        try:
            request, expected = machine.send(response)
        except StopIteration as result:
            return result.value


class Owner:
    """What SecureHomeKitConnection asks of its IpPairing: a name, events, connection news."""

    description = None

    def __init__(self, name):
        self.name = name
        self.events = []
        self.event = asyncio.Event()

    def event_received(self, parsed):
        self.events.append(parsed)
        self.event.set()

    async def connection_made(self, secure):
        pass


async def pair_setup(host, port, code):
    """aiohomekit's own pair-setup with the setup code, on a connection of its own: the pairing.
    Raises aiohomekit's exception when the accessory refuses."""
    connection = HomeKitConnection(None, [host], port)
    await connection.ensure_connection()
    try:
        salt, public_key = await exchange(perform_pair_setup_part1(False), connection, "/pair-setup")
        return await exchange(perform_pair_setup_part2(code, str(uuid.uuid4()), salt, public_key), connection, "/pair-setup")
    finally:
        await connection.close()


async def pair_verify_on_socket(reader, writer, pairing, timeout=None):
    """Pair-verify with aiohomekit's get_session_keys over a plain socket, the HTTP written here, so
    that the socket is the caller's afterwards (to send what aiohomekit never would). Each read
    waits at most `timeout` seconds (None: as long as it takes). Returns what get_session_keys
    returns; raises aiohomekit's refusal."""
    machine = get_session_keys(pairing)
    request, expected = machine.send(None)
    try:
        while True:
            body = TLV.encode_list(request)
            writer.write(b"POST /pair-verify HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\n"
                         + f"Content-Length: {len(body)}\r\n\r\n".encode() + bytes(body))
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
            length = int([line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")][0])
            response = TLV.decode_bytes(await asyncio.wait_for(reader.readexactly(length), timeout), expected=expected)
            request, expected = machine.send(response)
    except StopIteration as result:
        return result.value
