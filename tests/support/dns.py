"""A DNS server a test owns: answers A queries for a few names, counts the questions.

nginx's ``resolver`` asks it for the nodes' shared name::

    async with StubDns({"simon-node": ["127.0.0.2", "127.0.0.3"]}) as dns:
        ...   # resolver 127.0.0.1:<dns.port>
        dns.records["simon-node"] = ["127.0.0.3"]   # a node went away

Other names get NXDOMAIN. UDP on 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import ipaddress
import struct
from types import TracebackType
from typing import Any


class _Protocol(asyncio.DatagramProtocol):
    def __init__(self, stub: StubDns) -> None:
        self.stub = stub
        self.transport: Any = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        answer = self.stub.answer(data)
        if answer is not None and self.transport is not None:
            self.transport.sendto(answer, addr)


class StubDns:
    def __init__(self, records: dict[str, list[str]]) -> None:
        self.records = records
        #: Questions asked so far, by name.
        self.questions: dict[str, int] = {}
        self._transport: Any = None

    @property
    def port(self) -> int:
        assert self._transport is not None
        return int(self._transport.get_extra_info("sockname")[1])

    async def __aenter__(self) -> StubDns:
        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_datagram_endpoint(
            lambda: _Protocol(self), local_addr=("127.0.0.1", 0)
        )
        self._transport = transport
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._transport is not None:
            self._transport.close()

    def answer(self, query: bytes) -> bytes | None:
        if len(query) < 12:
            return None
        ident, _flags, qdcount = struct.unpack(">HHH", query[:6])
        if qdcount != 1:
            return None
        labels, offset = [], 12
        while offset < len(query) and query[offset]:
            length = query[offset]
            labels.append(query[offset + 1 : offset + 1 + length].decode("ascii", "replace"))
            offset += 1 + length
        offset += 1
        if offset + 4 > len(query):
            return None
        qtype, _qclass = struct.unpack(">HH", query[offset : offset + 4])
        question = query[12 : offset + 4]
        name = ".".join(labels).lower().rstrip(".")
        self.questions[name] = self.questions.get(name, 0) + 1
        addresses = self.records.get(name)
        if addresses is None:  # NXDOMAIN
            return struct.pack(">HHHHHH", ident, 0x8183, 1, 0, 0, 0) + question
        answers = b""
        if qtype == 1:  # A
            for address in addresses:
                answers += struct.pack(">HHHIH", 0xC00C, 1, 1, 1, 4)
                answers += ipaddress.IPv4Address(address).packed
        count = len(addresses) if qtype == 1 else 0
        return struct.pack(">HHHHHH", ident, 0x8180, 1, count, 0, 0) + question + answers


__all__ = ["StubDns"]
