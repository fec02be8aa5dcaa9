"""maitool-bench's driver for MaiBot's own plugin host (the benchmark's section 7).

It runs as a separate program with the Python of a venv where the `maibot` package imports
(`.ci/install-maibot-host.sh`), starts MaiBot's host-side supervisor of one runner, as MaiBot
does for its third-party plugins, over the plugin folder it is given, and invokes a tool the way
MaiBot's agent does: through MaiBot's `ToolRegistry` with `PluginToolProvider` registered, so a
call goes registry -> provider -> component query -> supervisor -> RPC -> runner -> back. This
file is ours (maitool's licence); it imports MaiBot's modules and copies none of their code.

It speaks JSON lines: one object per line on its standard input, one answer per line on the
file descriptor that was its standard output. Its own standard output is pointed at its
standard error at start, so MaiBot's console logging cannot mix with the answers.

    -> (on start)                            {"ready": true, "host_pid": N, "runner_pid": N}
    {"op": "sequential", "calls": N}      -> {"samples_ns": [...], "failures": {message: count}}
    {"op": "concurrent", "window": W, "calls": N}
                                          -> {"seconds": S, "failures": {message: count}}
    {"op": "stop"}                        -> {"stopped": true}, then exits

Usage: python maibot_host_driver.py PLUGIN_ROOT TOOL_NAME ARGUMENTS_JSON CONTEXT_JSON, with the
working directory and MAIBOT_INSTANCE_DIR an instance directory (MaiBot writes its config, data
and logs there). CONTEXT_JSON holds the fields of MaiBot's ToolExecutionContext the calls are
made in (the benchmark gives both hosts the same session and stream). A failure to start is one
line {"error": "..."} and exit status 1.
"""

import asyncio
import json
import os
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

# The answers go to a private copy of the standard output; everything else printed goes to
# the standard error.
_ANSWERS = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr


def answer(value: dict) -> None:
    _ANSWERS.write(json.dumps(value, ensure_ascii=False) + "\n")
    _ANSWERS.flush()


class MaiBotHost:
    """MaiBot's supervisor of one runner, and the registry the agent calls tools through."""

    def __init__(self, plugin_root: Path, tool: str, arguments: dict, context: dict) -> None:
        from src.core.tooling import ToolExecutionContext, ToolInvocation, ToolRegistry
        from src.plugin_runtime.host.supervisor import PluginRunnerSupervisor
        from src.plugin_runtime.integration import get_plugin_runtime_manager
        from src.plugin_runtime.tool_provider import PluginToolProvider

        self._invocation_type = ToolInvocation
        self._tool = tool
        self._arguments = arguments
        # MaiBot's provider copies the context's session fields into the arguments.
        self._context = ToolExecutionContext(**context)
        # The runtime manager is the singleton the component query reads its supervisors
        # from. Its own start() also syncs plugin dependencies with pip, watches files and
        # starts the built-in plugins' runner; the benchmark needs the third-party group alone,
        # set up with the arguments its _build_supervisors gives that group.
        self._manager = get_plugin_runtime_manager()
        self._supervisor = PluginRunnerSupervisor(
            plugin_dirs=[plugin_root],
            group_name="third_party",
            plugin_type_filter="not_adapter",
            status_changed_callback=self._manager._notify_status_changed,
        )
        self._manager._third_party_supervisor = self._supervisor
        self._manager._register_capability_impls(self._supervisor)
        self._registry = ToolRegistry()
        self._registry.register_provider(PluginToolProvider())

    async def start(self) -> int:
        await self._supervisor.start()
        process = self._supervisor._runner_process
        if process is None or process.returncode is not None:
            raise RuntimeError("MaiBot's supervisor started no runner")
        # One call before the first answer: the plugin must be registered and callable.
        failure = await self.call()
        if failure is not None:
            raise RuntimeError(f"{self._tool} does not answer: {failure}")
        return process.pid

    async def stop(self) -> None:
        await self._supervisor.stop()

    async def call(self) -> str | None:
        """One call; None when it succeeded, else its error message."""
        invocation = self._invocation_type(tool_name=self._tool, arguments=dict(self._arguments))
        result = await self._registry.invoke(invocation, self._context)
        if result.success:
            return None
        return result.error_message or "failed without a message"

    async def sequential(self, calls: int) -> dict:
        samples, failures = [], Counter()
        for _ in range(calls):
            started = time.perf_counter_ns()
            failure = await self.call()
            samples.append(time.perf_counter_ns() - started)
            if failure is not None:
                failures[failure] += 1
        return {"samples_ns": samples, "failures": dict(failures)}

    async def concurrent(self, window: int, calls: int) -> dict:
        issued, failures = 0, Counter()

        async def worker() -> None:
            nonlocal issued
            while issued < calls:
                issued += 1
                failure = await self.call()
                if failure is not None:
                    failures[failure] += 1

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(window)))
        return {"seconds": time.perf_counter() - started, "failures": dict(failures)}


async def serve(host: MaiBotHost) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        request = json.loads(line)
        op = request.get("op")
        if op == "sequential":
            answer(await host.sequential(int(request["calls"])))
        elif op == "concurrent":
            answer(await host.concurrent(int(request["window"]), int(request["calls"])))
        elif op == "stop":
            break
        else:
            answer({"error": f"unknown op {op!r}"})
    await host.stop()
    answer({"stopped": True})


async def main() -> int:
    if len(sys.argv) != 5:
        answer({"error": "usage: maibot_host_driver.py PLUGIN_ROOT TOOL_NAME ARGUMENTS_JSON CONTEXT_JSON"})
        return 2
    try:
        arguments, context = json.loads(sys.argv[3]), json.loads(sys.argv[4])
        host = MaiBotHost(Path(sys.argv[1]), sys.argv[2], arguments, context)
        runner_pid = await host.start()
    except Exception as error:  # noqa: BLE001 - any failure to start is reported, then exit
        traceback.print_exc()
        answer({"error": f"MaiBot's host did not start: {error!r}"})
        return 1
    answer({"ready": True, "host_pid": os.getpid(), "runner_pid": runner_pid})
    await serve(host)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
