"""The controller of `switchboard-bench homekit`: aiohomekit's pair-setup and encrypted session
against one accessory server (switchboardd's bridge or HAP-python), timing writes and events of
the first Switch's On characteristic.

    python aiohomekit-bench.py HOST PORT SETUP_CODE WARMUP WRITES EVENTS

It pairs, reads /accessories, subscribes to On, and talks with the benchmark in lines (its own
on standard output, the benchmark's on standard input):
  "ready"  → waits for a line: WARMUP writes are done and the timed ones start on the answer;
  "written" → waits for a line: the WRITES timed writes (On alternating true, false, one in
             flight, each timed from the request to the accessory's answer) are done;
  "toggle" → EVENTS times: the benchmark changes On from outside and answers a line once it has;
             each is timed from the line written to the EVENT received.
Last, one JSON line: {"aid", "iid", "last": the last value written, "writes_us", "events_us"}.
"""

import asyncio
import json
import sys
import time

from aiohomekit.controller.ip.connection import SecureHomeKitConnection
from hap_controller import Owner, pair_setup


def short(uuid):
    """HAP's short type ("49") of a type written short or as a full UUID."""
    return uuid.upper().split("-")[0].lstrip("0")


def switch_on(accessories):
    """(aid, iid) of the first Switch (49) service's On (25) characteristic."""
    for accessory in accessories:
        for service in accessory["services"]:
            if short(service["type"]) == "49":
                for characteristic in service["characteristics"]:
                    if short(characteristic["type"]) == "25":
                        return accessory["aid"], characteristic["iid"]
    raise SystemExit("no Switch service with an On characteristic in /accessories")


async def main(host, port, code, warmup, writes, events):
    loop = asyncio.get_running_loop()
    commands = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(commands), sys.stdin)

    async def ask(word):
        print(word, flush=True)
        if not await commands.readline():
            raise SystemExit("the benchmark closed standard input")

    pairing = {**await pair_setup(host, port, code), "AccessoryIP": host, "AccessoryPort": port}
    owner = Owner("aiohomekit-bench")
    secure = SecureHomeKitConnection(owner, pairing)
    await asyncio.wait_for(secure.ensure_connection(), 10)
    aid, iid = switch_on((await secure.get_json("/accessories"))["accessories"])
    await secure.put_json("/characteristics", {"characteristics": [{"aid": aid, "iid": iid, "ev": True}]})

    async def write(value):
        answer = await secure.put_json("/characteristics", {"characteristics": [{"aid": aid, "iid": iid, "value": value}]})
        if answer:  # aiohomekit gives {} for 204 No Content, the statuses otherwise
            raise SystemExit(f"writing On {value} was refused: {answer}")

    for index in range(warmup):
        await write(index % 2 == 0)
    await ask("ready")
    writes_us = []
    for index in range(writes):
        started = time.perf_counter_ns()
        await write(index % 2 == 0)
        writes_us.append((time.perf_counter_ns() - started) / 1000)
    await ask("written")

    events_us = []
    for _ in range(events):
        owner.event.clear()
        started = time.perf_counter_ns()
        toggled = asyncio.ensure_future(ask("toggle"))
        await asyncio.wait_for(owner.event.wait(), 10)
        events_us.append((time.perf_counter_ns() - started) / 1000)
        await toggled
    await secure.close()
    print(json.dumps({"aid": aid, "iid": iid, "last": (writes - 1) % 2 == 0 if writes else None,
                      "writes_us": writes_us, "events_us": events_us}), flush=True)


asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3], *[int(argument) for argument in sys.argv[4:7]]))
