#!/usr/bin/env python3
"""Drives maitool's MCP server front with the Python MCP SDK client (the `mcp` package from
PyPI, installed by .ci/install-python-mcp.sh), for tests/tests/mcp_front.rs.

    mcp_front_client.py --plan PLAN.json --mode legacy|auto (--url URL | --stdio CMD ARGS...)

`--stdio` launches the server itself (`maitool ... serve --mcp-stdio`), as a desktop app
would; `--url` connects to a running `maitool serve --mcp-http`. `--mode legacy` uses the
`initialize` handshake (protocol 2025-11-25); `--mode auto` probes `server/discover` and
settles on 2026-07-28.

The plan is a JSON list of steps run in order, each with an `id` and a `kind`:

* `info`: protocol version, server info and capabilities of the connection;
* `list_all`: every `tools/list` page (`meta` optional); returns the page names, the tools
  and how long the listing took (`elapsed`, seconds);
* `list`: one page at `cursor`; a JSON-RPC error is returned as `{"error": ...}`;
* `call`: `name`, `arguments`, optional `meta`; returns the result and the progress
  notifications received for it, or `{"error": ...}`;
* `cancel`: a `call` abandoned after `after` seconds (the client sends
  `notifications/cancelled`, or closes the stream on 2026-07-28 HTTP); returns whether the
  call was cut off and how long it took;
* `sleep`: waits `seconds`;
* `ready`: prints `{"ready": ID}`, for the test to act (e.g. kill a runner), and waits for
  the test to write a line on stdin;
* `wait_list_changed`: waits up to `timeout` seconds for a `notifications/tools/list_changed`
  received after the last `ready` step (legacy: unscoped; 2026-07-28: on a
  `subscriptions/listen` stream opened at connect);
* `wait_tool`: re-lists every 100 ms until tool `name` is listed, up to `timeout` seconds.

The last line of stdout is `{"connect_seconds": S, "results": {ID: RESULT, ...}}`, where S
is how long the client took to connect (over HTTP: the `initialize` or `server/discover`
exchange; over stdio the server's start is included); the server's stderr passes through to
this script's stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError


def dump(model: Any) -> Any:
    if model is None:
        return None
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def emit(value: Any) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def error(err: MCPError) -> dict[str, Any]:
    return {"error": {"code": err.code, "message": err.message}}


class Changes:
    """Counts tools/list_changed notifications, whichever way they arrive."""

    def __init__(self) -> None:
        self.count = 0
        # The count at the last `ready` step: waits look for notifications after it.
        self.mark = 0

    def seen(self) -> None:
        self.count += 1

    async def handler(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.seen()

    async def wait(self, seen_before: int, timeout: float) -> bool:
        with anyio.move_on_after(timeout):
            while self.count <= seen_before:
                await anyio.sleep(0.02)
        return self.count > seen_before


async def list_all(client: Client, meta: dict[str, Any] | None) -> dict[str, Any]:
    pages: list[list[str]] = []
    tools: list[Any] = []
    cursor = None
    started = time.monotonic()
    while True:
        page = await client.list_tools(cursor=cursor, meta=meta, cache_mode="refresh")
        pages.append([tool.name for tool in page.tools])
        tools.extend(dump(tool) for tool in page.tools)
        cursor = page.next_cursor
        if not cursor:
            return {"pages": pages, "tools": tools, "elapsed": time.monotonic() - started}
        if len(pages) > 1000:
            raise RuntimeError("more than 1000 pages: the cursor never ends")


async def call(client: Client, step: dict[str, Any]) -> dict[str, Any]:
    progress: list[dict[str, Any]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append({"progress": value, "total": total, "message": message})

    started = time.monotonic()
    try:
        result = await client.call_tool(
            step["name"],
            step.get("arguments", {}),
            progress_callback=on_progress,
            meta=step.get("meta"),
        )
    except MCPError as err:
        return error(err)
    return {
        "result": dump(result),
        "progress": progress,
        "elapsed": time.monotonic() - started,
    }


async def run_step(client: Client, changes: Changes, step: dict[str, Any]) -> Any:
    kind = step["kind"]
    if kind == "info":
        return {
            "protocol_version": client.protocol_version,
            "server_info": dump(client.server_info),
            "capabilities": dump(client.server_capabilities),
            "instructions": client.instructions,
        }
    if kind == "list_all":
        return await list_all(client, step.get("meta"))
    if kind == "list":
        try:
            page = await client.list_tools(
                cursor=step.get("cursor"), meta=step.get("meta"), cache_mode="refresh"
            )
        except MCPError as err:
            return error(err)
        return {"tools": [dump(tool) for tool in page.tools], "next_cursor": page.next_cursor}
    if kind == "call":
        return await call(client, step)
    if kind == "cancel":
        started = time.monotonic()
        finished = None
        with anyio.move_on_after(step["after"]) as scope:
            finished = await call(client, step)
        return {
            "cancelled": scope.cancelled_caught,
            "elapsed": time.monotonic() - started,
            "finished": finished,
        }
    if kind == "sleep":
        await anyio.sleep(step["seconds"])
        return True
    if kind == "ready":
        changes.mark = changes.count
        emit({"ready": step["id"]})
        # Wait for the test to finish acting (it writes a line), so a host that lives only as
        # long as this client is still there while it does.
        answer = await anyio.to_thread.run_sync(sys.stdin.readline)
        return answer.strip()
    if kind == "wait_list_changed":
        before = changes.mark
        started = time.monotonic()
        received = await changes.wait(before, step["timeout"])
        return {"received": received, "count": changes.count, "elapsed": time.monotonic() - started}
    if kind == "wait_tool":
        started = time.monotonic()
        with anyio.move_on_after(step["timeout"]):
            while True:
                listed = await list_all(client, None)
                if any(tool["name"] == step["name"] for tool in listed["tools"]):
                    return {"listed": True, "elapsed": time.monotonic() - started}
                await anyio.sleep(0.1)
        return {"listed": False, "elapsed": time.monotonic() - started}
    raise ValueError(f"unknown step kind {kind!r}")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--plan", required=True)
    parser.add_argument("--mode", choices=["legacy", "auto"], default="legacy")
    parser.add_argument("--url")
    parser.add_argument("--stdio", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    with open(args.plan) as plan_file:
        plan = json.load(plan_file)
    if args.url:
        server: Any = args.url
    elif args.stdio:
        server = StdioServerParameters(command=args.stdio[0], args=args.stdio[1:])
    else:
        parser.error("--url or --stdio is required")

    changes = Changes()
    results: dict[str, Any] = {}
    connect_started = time.monotonic()
    async with Client(server, mode=args.mode, message_handler=changes.handler, read_timeout_seconds=60) as client:
        connect_seconds = time.monotonic() - connect_started
        wants_changes = any(step["kind"] == "wait_list_changed" for step in plan)
        if wants_changes and client.protocol_version >= "2026-07-28":
            async with client.listen(tools_list_changed=True) as subscription:

                async def pump() -> None:
                    async for _event in subscription:
                        changes.seen()

                async with anyio.create_task_group() as group:
                    group.start_soon(pump)
                    for step in plan:
                        results[step["id"]] = await run_step(client, changes, step)
                    group.cancel_scope.cancel()
        else:
            for step in plan:
                results[step["id"]] = await run_step(client, changes, step)
    emit({"connect_seconds": connect_seconds, "results": results})


if __name__ == "__main__":
    anyio.run(main)
