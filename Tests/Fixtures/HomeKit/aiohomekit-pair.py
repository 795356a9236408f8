"""Pairs with a HAP accessory as aiohomekit's IP controller does, and prints what it got as JSON.

    python aiohomekit-pair.py HOST PORT SETUP_CODE

Pair-setup runs aiohomekit's own state machines (perform_pair_setup_part1/2) over its own HTTP
connection (HomeKitConnection.post_tlv to /pair-setup), the way IpDiscovery.async_start_pairing and
its finish_pairing do; pair-verify then runs get_session_keys over a second connection to
/pair-verify, as SecureHomeKitConnection does, and derives the session keys; last, aiohomekit's
own SecureHomeKitConnection pair-verifies on a third connection and reads /accessories over the
encrypted session. Prints {"pairing": ..., "controllerToAccessory": hex, "accessoryToController":
hex, "accessories": ...}, or {"error": "AuthenticationError", ...} when the accessory refuses.
"""

import asyncio
import json
import sys
from aiohomekit.controller.ip.connection import HomeKitConnection, SecureHomeKitConnection
from aiohomekit.protocol import get_session_keys
from hap_controller import exchange, pair_setup


async def main(host, port, setup_code):
    try:
        pairing = await pair_setup(host, port, setup_code)
    except Exception as error:  # the accessory's refusal, as aiohomekit raises it
        print(json.dumps({"error": type(error).__name__, "message": str(error)}))
        return

    connection = HomeKitConnection(None, [host], port)
    await connection.ensure_connection()
    try:
        _, derive = await exchange(get_session_keys(pairing), connection, "/pair-verify")
    finally:
        await connection.close()

    secure = SecureHomeKitConnection(None, {**pairing, "AccessoryIP": host, "AccessoryPort": port})
    await secure.ensure_connection()
    try:
        accessories = await secure.get_json("/accessories")
    finally:
        await secure.close()
    print(json.dumps({
        "accessories": accessories,
        "pairing": {key: pairing[key] for key in ("AccessoryPairingID", "AccessoryLTPK", "iOSPairingId", "iOSDeviceLTPK")},
        "controllerToAccessory": derive(b"Control-Salt", b"Control-Write-Encryption-Key").hex(),
        "accessoryToController": derive(b"Control-Salt", b"Control-Read-Encryption-Key").hex(),
    }))


asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
