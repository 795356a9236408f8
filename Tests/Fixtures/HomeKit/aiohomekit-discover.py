"""Looks for one HomeKit accessory the way aiohomekit does: python-zeroconf sends its mDNS
queries for NAME._hap._tcp.local. on 127.0.0.1 (run it in the network namespace of the
avahi-daemon under test), and aiohomekit's HomeKitService reads the answer's TXT record.

    aiohomekit-discover.py NAME TIMEOUT_SECONDS

Prints one JSON line: {"found": false}, or {"found": true, ...} with what aiohomekit read.
"""
import asyncio
import json
import sys

from aiohomekit.zeroconf import HomeKitService
from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf


async def main(name: str, timeout: float) -> None:
    azc = AsyncZeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    try:
        info = AsyncServiceInfo("_hap._tcp.local.", f"{name}._hap._tcp.local.")
        if not await info.async_request(azc.zeroconf, timeout * 1000):
            print(json.dumps({"found": False}))
            return
        service = HomeKitService.from_service_info(info)
        print(json.dumps({
            "found": True, "name": service.name, "id": service.id, "model": service.model,
            "config_num": service.config_num, "state_num": service.state_num,
            "feature_flags": int(service.feature_flags), "status_flags": int(service.status_flags),
            "category": int(service.category), "protocol_version": service.protocol_version,
            "port": service.port, "address": service.address,
        }))
    finally:
        await azc.async_close()


asyncio.run(main(sys.argv[1], float(sys.argv[2])))
