"""What the aiohomekit fixtures share: driving aiohomekit's pairing state machines over a
connection, and the owner a SecureHomeKitConnection reports to."""

import asyncio


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
