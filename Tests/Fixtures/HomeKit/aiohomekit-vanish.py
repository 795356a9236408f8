"""Two verified controllers of a HAP accessory, one of which vanishes as a phone that leaves the
network does: its socket is closed in TCP repair mode, which sends neither FIN nor RST (that
needs CAP_NET_ADMIN), so only the accessory's own probes can find out that it is gone.

    python aiohomekit-vanish.py HOST PORT SETUP_CODE MARKER

Pairs with aiohomekit's pair-setup, pair-verifies two plain sockets with aiohomekit's
get_session_keys, closes the second in repair mode, then writes MARKER (an empty file) and keeps
the first open, silent, until MARKER.done exists (at most 30 s). Prints {"verified": 2} as JSON,
or {"repair": "the error"} when the socket cannot be put in repair mode.
"""

import asyncio
import json
import os
import socket
import sys

from hap_controller import pair_setup, pair_verify_on_socket

TCP_REPAIR = 19  # linux/tcp.h


async def verified(host, port, pairing):
    reader, writer = await asyncio.open_connection(host, port)
    await pair_verify_on_socket(reader, writer, pairing, timeout=10)
    return reader, writer


async def main(host, port, setup_code, marker):
    pairing = await pair_setup(host, port, setup_code)
    kept = await verified(host, port, pairing)
    _, vanishing = await verified(host, port, pairing)
    # Until the accessory's last answer is acknowledged (a delayed ACK: 40 ms), its kernel would
    # send it again and get a reset for it: the vanishing must leave nothing in flight.
    await asyncio.sleep(0.5)
    try:
        vanishing.get_extra_info("socket").setsockopt(socket.SOL_TCP, TCP_REPAIR, 1)
    except OSError as error:
        print(json.dumps({"repair": str(error)}))
        return
    vanishing.transport.abort()
    open(marker, "w").close()
    for _ in range(300):
        if os.path.exists(marker + ".done"):
            break
        await asyncio.sleep(0.1)
    kept[1].close()
    print(json.dumps({"verified": 2}))


asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]))
