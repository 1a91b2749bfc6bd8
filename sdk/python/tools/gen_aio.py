"""Write loci/aio.py, the asyncio client, from the blocking one (loci/client.py).

    python3 tools/gen_aio.py            # rewrite loci/aio.py
    python3 tools/gen_aio.py --check    # exit 1 if loci/aio.py is stale

Each public method of Client, AgentClient and UserClient becomes an ``async
def`` of AsyncClient, AsyncAgentClient and AsyncUserClient with the same
signature, documentation and body, except that it awaits the request
(``return await self._request(...)``, ``return await self.client.x(...)``).
A method that does anything else than return one request fails the
generation, so the two clients cannot drift apart. Standard library only.
"""

import argparse
import ast
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "loci", "client.py")
OUT = os.path.join(HERE, "..", "loci", "aio.py")

CLASSES = {"Client": "AsyncClient", "AgentClient": "AsyncAgentClient", "UserClient": "AsyncUserClient"}

HEADER = '''"""The asyncio client: :class:`AsyncClient` has every method of
:class:`loci.Client`, with the same arguments and answers, as coroutines.

    import asyncio, loci

    async def main():
        client = loci.AsyncClient()
        ev = await client.add_memory("Likes green tea", user_id="alice")
        print((await client.get_memory(ev["id"]))["content"])

    asyncio.run(main())

Do not edit: generated from loci/client.py by ``python3 tools/gen_aio.py``
in sdk/python (``make sdk-gen``).
"""

import json
from typing import Any, Optional, Sequence, Union

from . import types as t
from .client import UNSET, Time, _AsyncClientBase, _fields, _op_times, _path, _time

__all__ = ["AsyncClient", "AsyncAgentClient", "AsyncUserClient"]
'''

CLIENT_DOC = '''    """A client of one loci server for asyncio: the methods of :class:`loci.Client`,
    each a coroutine, with the same arguments, settings and retry rules.

    Each HTTP exchange runs in a worker thread (:func:`asyncio.to_thread`, the
    event loop's default executor) through the same urllib transport as
    :class:`loci.Client`, so TLS, proxies, timeouts and errors behave alike; the
    waits between retries are :func:`asyncio.sleep`, so they never block the
    loop and a cancelled call stops waiting at once. A call cancelled while its
    exchange is in flight stops being awaited, and the exchange itself ends in
    its thread (within ``timeout``). As many calls run at once as the default
    executor has threads.
    """
'''

RENAME = re.compile(r"\b(Agent|User)?Client\b")


def _rename(text):
    return RENAME.sub(lambda m: "Async" + m.group(0), text)


def generate():
    with open(SRC, encoding="utf-8") as f:
        source = f.read()
    lines = source.splitlines(keepends=True)
    tree = ast.parse(source)
    out = [HEADER]
    found = set()
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or node.name not in CLASSES:
            continue
        found.add(node.name)
        name = CLASSES[node.name]
        out.append("\n\nclass %s%s:\n" % (name, "(_AsyncClientBase)" if node.name == "Client" else ""))
        body = node.body
        doc = body[0]
        if node.name == "Client":
            out.append(CLIENT_DOC)
        else:
            out.append(_rename("".join(lines[doc.lineno - 1 : doc.end_lineno])))
        prev_end = doc.end_lineno
        for item in body[1:]:
            if not isinstance(item, ast.FunctionDef):
                raise SystemExit("gen_aio: %s.%s is not a method" % (node.name, getattr(item, "name", "?")))
            text = "".join(lines[prev_end : item.end_lineno])
            prev_end = item.end_lineno
            if node.name == "Client" and item.name == "_request":
                continue  # _AsyncClientBase has the awaited one
            if item.name.startswith("_") and item.name not in ("__init__", "__repr__"):
                raise SystemExit("gen_aio: %s.%s: a private method of a client class has no asyncio form" % (node.name, item.name))
            if item.name in ("__init__", "__repr__", "agent", "user"):
                out.append(_rename(text))  # not coroutines: they make or show a client
                continue
            text, n = re.subn(r"^(\s*)def ", r"\1async def ", text, count=1, flags=re.M)
            text, m = re.subn(r"\breturn self\.(_request|client\.\w+)\(", r"return await self.\1(", text)
            returns = [s for s in ast.walk(item) if isinstance(s, ast.Return)]
            if n != 1 or m != 1 or len(returns) != 1:
                raise SystemExit(
                    "gen_aio: %s.%s must end in one `return self._request(...)` or `return self.client.NAME(...)`"
                    % (node.name, item.name)
                )
            out.append(text)
    if found != set(CLASSES):
        raise SystemExit("gen_aio: classes not found in client.py: %s" % sorted(set(CLASSES) - found))
    return "".join(out).rstrip("\n") + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if loci/aio.py is stale")
    args = ap.parse_args()
    text = generate()
    if args.check:
        with open(OUT, encoding="utf-8") as f:
            if f.read() != text:
                print("loci/aio.py is stale: run python3 tools/gen_aio.py", file=sys.stderr)
                sys.exit(1)
        return
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
