"""Publishes a _hap._tcp service from another mDNS stack (python-zeroconf, as another host would),
for the advertiser's collision test: run it in the network namespace of the avahi-daemon under
test. Prints "published" once the name is claimed, then holds it until killed.

    mdns-publish.py NAME PORT
"""
import asyncio
import socket
import sys

from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf


async def main(name: str, port: int) -> None:
    azc = AsyncZeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    info = AsyncServiceInfo("_hap._tcp.local.", f"{name}._hap._tcp.local.", port=port,
                            addresses=[socket.inet_aton("127.0.0.1")], server="other-host.local.",
                            properties={"id": "11:22:33:44:55:66", "sf": "1", "c#": "1"})
    await azc.async_register_service(info)
    print("published", flush=True)
    await asyncio.Event().wait()


asyncio.run(main(sys.argv[1], int(sys.argv[2])))
