"""Drives switchboardd's HomeKit bridge as aiohomekit's IP controller does, one step per run,
keeping the pairing in a JSON file between runs (so that a step can follow a daemon restart).
Each run prints one JSON line.

    python aiohomekit-daemon.py pair HOST PORT SETUP_CODE PAIRING_FILE
    python aiohomekit-daemon.py accessories PAIRING_FILE
    python aiohomekit-daemon.py put PAIRING_FILE AID IID JSON_VALUE
    python aiohomekit-daemon.py watch PAIRING_FILE AID IID MARKER SECONDS
    python aiohomekit-daemon.py verify PAIRING_FILE
    python aiohomekit-daemon.py concurrent PAIRING_FILE WRITE_AID WRITE_IID EVENT_AID EVENT_IID FOLDER
    python aiohomekit-daemon.py add PAIRING_FILE NEW_PAIRING_FILE ADMIN
    python aiohomekit-daemon.py list PAIRING_FILE
    python aiohomekit-daemon.py remove PAIRING_FILE REMOVED_PAIRING_FILE
    python aiohomekit-daemon.py wrong HOST PORT SETUP_CODE COUNT

pair: aiohomekit's own pair-setup state machines with the setup code (the refusal's name when
the accessory refuses). accessories: GET
/accessories over aiohomekit's SecureHomeKitConnection (pair-verify, encrypted session), parsed
by aiohomekit's model; prints for each accessory its aid, name and each service's type, iid and
characteristics (type, iid, value). put: PUT /characteristics of one value, prints the answer
(aiohomekit's {} for 204, else the statuses). watch: subscribes to one characteristic, writes
MARKER (an empty file), and prints the events received within SECONDS. verify: pair-verify over a
plain socket with aiohomekit's get_session_keys: prints whether the accessory still knows this
controller. concurrent: two sessions of the same pairing; the first writes true to one
characteristic while the second, subscribed to another, waits for its event (FOLDER/writing is
written once the write is sent, FOLDER/seen once the event came and a read was answered): prints
whether the write was still unanswered when the event came and when the read was answered.
add: the controller of PAIRING_FILE adds a new controller (a fresh Ed25519 key; ADMIN 1 or 0)
with /pairings, and writes its pairing to NEW_PAIRING_FILE; list: /pairings' list; remove: removes
the controller of REMOVED_PAIRING_FILE; each prints the accessory's answer as [type, hex] items
(and the list as identifiers with their admin flag). wrong: COUNT pair-setups with SETUP_CODE, one
after the other; prints the name of each refusal.
"""

import asyncio
import json
import sys

import uuid

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from aiohomekit.controller.ip.connection import SecureHomeKitConnection
from aiohomekit.model import Accessories
from aiohomekit.protocol.tlv import TLV
from hap_controller import Owner, pair_setup, pair_verify_on_socket


async def pair(host, port, code, path):
    try:
        pairing = await pair_setup(host, port, code)
    except Exception as error:  # the accessory's refusal, as aiohomekit raises it
        return {"paired": False, "error": type(error).__name__}
    pairing = {**pairing, "AccessoryIP": host, "AccessoryPort": port}
    with open(path, "w") as file:
        json.dump(pairing, file)
    return {"paired": True, "controller": pairing["iOSPairingId"]}


async def secure_session(path, owner):
    with open(path) as file:
        pairing = json.load(file)
    secure = SecureHomeKitConnection(owner, pairing)
    await asyncio.wait_for(secure.ensure_connection(), 10)
    return secure


async def accessories(path):
    secure = await secure_session(path, Owner("aiohomekit-daemon"))
    try:
        raw = await secure.get_json("/accessories")
    finally:
        await secure.close()
    model = Accessories.from_list(raw["accessories"])
    return {"accessories": [
        {
            "aid": accessory.aid,
            "name": accessory.name,
            "services": [
                {
                    "type": service.type,
                    "iid": service.iid,
                    "characteristics": [{"type": c.type, "iid": c.iid, "value": c.value} for c in service.characteristics],
                }
                for service in accessory.services
            ],
        }
        for accessory in model
    ]}


async def put(path, aid, iid, value):
    secure = await secure_session(path, Owner("aiohomekit-daemon"))
    try:
        answer = await secure.put_json("/characteristics", {"characteristics": [{"aid": aid, "iid": iid, "value": value}]})
    finally:
        await secure.close()
    return {"answer": answer}


async def watch(path, aid, iid, marker, seconds):
    owner = Owner("aiohomekit-daemon")
    secure = await secure_session(path, owner)
    try:
        subscribed = await secure.put_json("/characteristics", {"characteristics": [{"aid": aid, "iid": iid, "ev": True}]})
        open(marker, "w").close()
        try:
            await asyncio.wait_for(owner.event.wait(), seconds)
        except asyncio.TimeoutError:
            pass
    finally:
        await secure.close()
    return {"subscribed": subscribed, "events": owner.events}


async def verify(path):
    with open(path) as file:
        pairing = json.load(file)
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(pairing["AccessoryIP"], pairing["AccessoryPort"]), 5)
    except OSError as error:
        return {"verified": False, "error": f"connect: {error}"}
    try:
        await pair_verify_on_socket(reader, writer, pairing, timeout=5)
        return {"verified": True}
    except Exception as error:  # aiohomekit's refusal (an unknown controller: Authentication)
        return {"verified": False, "error": f"{type(error).__name__}: {error}"}
    finally:
        writer.close()


async def concurrent(path, write_aid, write_iid, event_aid, event_iid, folder):
    writer_owner, watcher_owner = Owner("aiohomekit-daemon"), Owner("aiohomekit-daemon")
    writer = await secure_session(path, writer_owner)
    watcher = await secure_session(path, watcher_owner)
    try:
        subscribed = await watcher.put_json("/characteristics", {"characteristics": [{"aid": event_aid, "iid": event_iid, "ev": True}]})
        writing = asyncio.ensure_future(
            writer.put_json("/characteristics", {"characteristics": [{"aid": write_aid, "iid": write_iid, "value": True}]}))
        open(folder + "/writing", "w").close()
        await asyncio.wait_for(watcher_owner.event.wait(), 10)
        pending_at_event = not writing.done()
        read = await asyncio.wait_for(watcher.get_json(f"/characteristics?id={event_aid}.{event_iid}"), 10)
        pending_at_read = not writing.done()
        open(folder + "/seen", "w").close()
        answer = await asyncio.wait_for(writing, 10)
    finally:
        await writer.close()
        await watcher.close()
    return {"subscribed": subscribed, "events": watcher_owner.events, "pendingAtEvent": pending_at_event,
            "read": read, "pendingAtRead": pending_at_read, "answer": answer}


async def echo(path, aid, iid, seconds):
    """Two sessions subscribe to one characteristic; one writes it. Returns each one's events
    until the watcher got its event and `seconds` more went by."""
    writer_owner, watcher_owner = Owner("aiohomekit-daemon"), Owner("aiohomekit-daemon")
    writer = await secure_session(path, writer_owner)
    watcher = await secure_session(path, watcher_owner)
    try:
        subscribe = {"characteristics": [{"aid": aid, "iid": iid, "ev": True}]}
        await writer.put_json("/characteristics", subscribe)
        await watcher.put_json("/characteristics", subscribe)
        answer = await asyncio.wait_for(
            writer.put_json("/characteristics", {"characteristics": [{"aid": aid, "iid": iid, "value": True}]}), 10)
        await asyncio.wait_for(watcher_owner.event.wait(), 10)
        await asyncio.sleep(seconds)
    finally:
        await writer.close()
        await watcher.close()
    return {"answer": answer, "writerEvents": writer_owner.events, "watcherEvents": watcher_owner.events}


async def post_pairings(path, items):
    secure = await secure_session(path, Owner("aiohomekit-daemon"))
    try:
        return await secure.post_tlv("/pairings", [(TLV.kTLVType_State, TLV.M1)] + items)
    finally:
        await secure.close()


def tlv_items(tlv):
    return [[key, bytes(value).hex()] for key, value in tlv]


async def add(path, new_path, admin):
    with open(path) as file:
        pairing = json.load(file)
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(encoding=serialization.Encoding.Raw, format=serialization.PublicFormat.Raw)
    identifier = str(uuid.uuid4())
    answer = await post_pairings(path, [
        (TLV.kTLVType_Method, TLV.AddPairing), (TLV.kTLVType_Identifier, identifier.encode()),
        (TLV.kTLVType_PublicKey, public), (TLV.kTLVType_Permissions, bytes([1 if admin else 0]))])
    private = key.private_bytes(encoding=serialization.Encoding.Raw, format=serialization.PrivateFormat.Raw,
                                encryption_algorithm=serialization.NoEncryption())
    with open(new_path, "w") as file:
        json.dump({**pairing, "iOSPairingId": identifier, "iOSDeviceLTSK": private.hex(), "iOSDeviceLTPK": public.hex()}, file)
    return {"answer": tlv_items(answer), "controller": identifier}


async def list_pairings(path):
    answer = await post_pairings(path, [(TLV.kTLVType_Method, TLV.ListPairings)])
    pairings, current = [], {}
    for key, value in answer:
        if key == TLV.kTLVType_Separator:
            pairings.append(current)
            current = {}
        elif key == TLV.kTLVType_Identifier:
            current["identifier"] = bytes(value).decode()
        elif key == TLV.kTLVType_Permissions:
            current["admin"] = value[0] == 1
    if current:
        pairings.append(current)
    return {"answer": tlv_items(answer), "pairings": pairings}


async def remove(path, removed_path):
    with open(removed_path) as file:
        identifier = json.load(file)["iOSPairingId"]
    answer = await post_pairings(path, [(TLV.kTLVType_Method, TLV.RemovePairing), (TLV.kTLVType_Identifier, identifier.encode())])
    return {"answer": tlv_items(answer)}


async def wrong(host, port, code, count):
    refusals = []
    for _ in range(count):
        try:
            await pair_setup(host, port, code)
            refusals.append("paired")
        except Exception as error:  # the accessory's refusal, as aiohomekit raises it
            refusals.append(type(error).__name__)
    return {"refusals": refusals}


def main(arguments):
    step = arguments[0]
    if step == "pair":
        work = pair(arguments[1], int(arguments[2]), arguments[3], arguments[4])
    elif step == "accessories":
        work = accessories(arguments[1])
    elif step == "put":
        work = put(arguments[1], int(arguments[2]), int(arguments[3]), json.loads(arguments[4]))
    elif step == "watch":
        work = watch(arguments[1], int(arguments[2]), int(arguments[3]), arguments[4], float(arguments[5]))
    elif step == "verify":
        work = verify(arguments[1])
    elif step == "concurrent":
        work = concurrent(arguments[1], *[int(argument) for argument in arguments[2:6]], arguments[6])
    elif step == "echo":
        work = echo(arguments[1], int(arguments[2]), int(arguments[3]), float(arguments[4]))
    elif step == "add":
        work = add(arguments[1], arguments[2], arguments[3] == "1")
    elif step == "list":
        work = list_pairings(arguments[1])
    elif step == "remove":
        work = remove(arguments[1], arguments[2])
    elif step == "wrong":
        work = wrong(arguments[1], int(arguments[2]), arguments[3], int(arguments[4]))
    else:
        raise SystemExit(f"unknown step {step}")
    print(json.dumps(asyncio.run(work)))


main(sys.argv[1:])
