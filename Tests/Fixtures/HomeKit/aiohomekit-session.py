"""Drives a HAP accessory server as aiohomekit's IP controller does, and prints what it saw as JSON.

    python aiohomekit-session.py HOST PORT SETUP_CODE MARKER

Pairs with aiohomekit's own pair-setup state machines (as aiohomekit-pair.py does), then works
over aiohomekit's own SecureHomeKitConnection (pair-verify, encrypted session): reads
/accessories and parses it with aiohomekit's model, reads the Switch's and the Outlet's On,
switches the Switch on, subscribes to the Outlet's On, writes MARKER (an empty file) and waits up
to 10 s for the event the test accessory sends when its outlet changes; adds a second pairing,
lists the pairings, removes it, lists again; pair-verifies on a plain socket and sends a frame
header of 2048 bytes (the accessory must close that connection and keep serving the first); last,
POSTs /identify (refused while paired).
"""

import asyncio
import json
import sys
import uuid

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from aiohomekit.controller.ip.connection import HomeKitConnection, SecureHomeKitConnection
from aiohomekit.exceptions import HttpErrorResponse
from aiohomekit.http import HttpContentTypes
from aiohomekit.model import Accessories
from aiohomekit.model.characteristics import CharacteristicsTypes
from aiohomekit.model.services import ServicesTypes
from aiohomekit.protocol.tlv import TLV
from hap_controller import Owner, pair_setup, pair_verify_on_socket


async def oversized_frame(host, port, pairing):
    """Pair-verifies over a plain socket with aiohomekit's get_session_keys, then announces a frame
    of 2048 bytes (HAP's limit is 1024): True when the accessory closes the connection."""
    reader, writer = await asyncio.open_connection(host, port)
    await pair_verify_on_socket(reader, writer, pairing)
    writer.write(b"\x00\x08" + bytes(64))
    try:
        closed = await asyncio.wait_for(reader.read(), 5) == b""
    except asyncio.TimeoutError:
        closed = False
    writer.close()
    return closed


def pairings_list(tlv):
    pairings, current = [], {}
    for key, value in tlv:
        if key == TLV.kTLVType_Separator:
            pairings.append(current)
            current = {}
        elif key == TLV.kTLVType_Identifier:
            current["identifier"] = value.decode()
        elif key == TLV.kTLVType_Permissions:
            current["admin"] = value[0] == 1
    if current:
        pairings.append(current)
    return pairings


async def main(host, port, setup_code, marker):
    pairing = await pair_setup(host, port, setup_code)

    owner = Owner("aiohomekit-session")
    secure = SecureHomeKitConnection(owner, {**pairing, "AccessoryIP": host, "AccessoryPort": port})
    await secure.ensure_connection()
    result = {}
    try:
        raw = await secure.get_json("/accessories")
        accessories = Accessories.from_list(raw["accessories"])
        result["services"] = sorted(
            f"{accessory.aid}:{service.type}"
            for accessory in accessories
            for service in accessory.services
            if service.type in (ServicesTypes.SWITCH, ServicesTypes.OUTLET)
        )
        switch = accessories.aid(2).services.first(service_type=ServicesTypes.SWITCH)
        result["switchOnIid"] = switch.value(CharacteristicsTypes.ON) is not None and switch[CharacteristicsTypes.ON].iid
        result["before"] = await secure.get_json("/characteristics?id=2.9,3.9")
        result["write"] = await secure.put_json("/characteristics", {"characteristics": [{"aid": 2, "iid": 9, "value": True}]})
        result["after"] = await secure.get_json("/characteristics?id=2.9")
        result["writeReadOnly"] = await secure.put_json("/characteristics", {"characteristics": [{"aid": 3, "iid": 10, "value": False}]})
        result["readMissing"] = await secure.get_json("/characteristics?id=2.9,9.9")
        result["subscribe"] = await secure.put_json("/characteristics", {"characteristics": [{"aid": 3, "iid": 9, "ev": True}]})
        open(marker, "w").close()
        try:
            await asyncio.wait_for(owner.event.wait(), 10)
        except asyncio.TimeoutError:
            pass
        result["events"] = owner.events

        second = Ed25519PrivateKey.generate().public_key().public_bytes(
            encoding=serialization.Encoding.Raw, format=serialization.PublicFormat.Raw)
        second_id = str(uuid.uuid4())
        added = await secure.post_tlv("/pairings", [
            (TLV.kTLVType_State, TLV.M1), (TLV.kTLVType_Method, TLV.AddPairing),
            (TLV.kTLVType_Identifier, second_id.encode()), (TLV.kTLVType_PublicKey, second),
            (TLV.kTLVType_Permissions, TLV.kTLVType_Permission_RegularUser)])
        result["added"] = [[key, value.hex()] for key, value in added]
        listing = await secure.post_tlv("/pairings", [(TLV.kTLVType_State, TLV.M1), (TLV.kTLVType_Method, TLV.ListPairings)])
        result["listed"] = pairings_list(listing)
        removed = await secure.post_tlv("/pairings", [
            (TLV.kTLVType_State, TLV.M1), (TLV.kTLVType_Method, TLV.RemovePairing),
            (TLV.kTLVType_Identifier, second_id.encode())])
        result["removed"] = [[key, value.hex()] for key, value in removed]
        listing = await secure.post_tlv("/pairings", [(TLV.kTLVType_State, TLV.M1), (TLV.kTLVType_Method, TLV.ListPairings)])
        result["listedAfter"] = pairings_list(listing)
        result["oversizedFrameClosed"] = await oversized_frame(host, port, pairing)
        result["afterOversizedFrame"] = await secure.get_json("/characteristics?id=2.9")
        result["controller"] = pairing["iOSPairingId"]
        result["secondController"] = second_id
    finally:
        await secure.close()

    identify = HomeKitConnection(None, [host], port)
    await identify.ensure_connection()
    try:
        try:
            response = await identify.post("/identify", b"", content_type=HttpContentTypes.JSON)
            result["identifyWhilePaired"] = response.code
        except HttpErrorResponse as refusal:
            result["identifyWhilePaired"] = refusal.response.code
    finally:
        await identify.close()
    print(json.dumps(result))


asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]))
