"""Hook handlers for the end-to-end tests, one behaviour each.

- maisaka.planner.before_request: `hide_in_quiet_sessions` (blocking, early) drops two tools
  and rewrites a third's description in sessions whose id starts with "quiet";
  `watch_listings` (observe) logs each listing and asks for an abort and empty tools, both of
  which the host ignores for an observe handler.
- chat.receive.before_process: `drop_spam` aborts on "spam" and otherwise marks the text.
- expression.learn.before_upsert: `fail_and_abort` raises on "boom-abort" (error_policy
  abort), `fail_and_skip` raises on "boom-skip" (skip), `mark_late` (late) marks the style:
  it runs only when nothing aborted before it.
- jargon.extract.before_persist: `too_slow` (timeout 300 ms) sleeps past its timeout;
  `after_slow` (late) runs anyway.
- jargon.inference.before_finalize: `stall` (timeout 300 ms), alone on its hook, always
  times out: five runs in a row pause the plugin (its circuit breaker).
- `stale_hook` subscribes to a hook MaiBot 1.3 does not have: it never runs, and the plugin's
  tool `hooks_ping` still works.
"""

import asyncio
from typing import Any

from maibot_sdk import HookHandler, MaiBotPlugin, Tool
from maibot_sdk.types import ErrorPolicy, HookMode, HookOrder

QUIET_HIDDEN = {"send_emoji", "units_self_check"}


class HookFixtures(MaiBotPlugin):
    async def on_load(self) -> None:
        pass

    async def on_unload(self) -> None:
        pass

    async def on_config_update(self, scope: str, config_data: dict[str, Any], version: str) -> None:
        pass

    @Tool("hooks_ping", description="Answers pong.", core_tool=True)
    async def handle_hooks_ping(self, **kwargs: Any) -> dict[str, Any]:
        return {"content": "pong"}

    @HookHandler("maisaka.planner.before_request", mode=HookMode.BLOCKING, order=HookOrder.EARLY)
    async def hide_in_quiet_sessions(self, **kwargs: Any) -> dict[str, Any] | None:
        if not str(kwargs.get("session_id", "")).startswith("quiet"):
            return None
        tools = []
        for tool in kwargs["tool_definitions"]:
            name = tool.get("function", {}).get("name")
            if name in QUIET_HIDDEN:
                continue
            if name == "trip_length":
                tool = {**tool, "function": {**tool["function"], "description": "[quiet] trip length"}}
            tools.append(tool)
        kwargs["tool_definitions"] = tools
        return {"modified_kwargs": kwargs, "custom_result": {"hidden": sorted(QUIET_HIDDEN)}}

    @HookHandler("maisaka.planner.before_request", mode=HookMode.OBSERVE)
    async def watch_listings(self, **kwargs: Any) -> dict[str, Any]:
        self.ctx.logger.info(
            f"observed a listing of {len(kwargs['tool_definitions'])} tools for {kwargs['session_id']}"
        )
        return {"action": "abort", "modified_kwargs": {**kwargs, "tool_definitions": []}}

    @HookHandler("chat.receive.before_process")
    async def drop_spam(self, **kwargs: Any) -> dict[str, Any]:
        message = dict(kwargs["message"])
        if "spam" in str(message.get("processed_plain_text", "")):
            return {"action": "abort", "custom_result": {"dropped": message.get("message_id")}}
        message["processed_plain_text"] = f"{message.get('processed_plain_text', '')} [checked]"
        return {"modified_kwargs": {**kwargs, "message": message}}

    @HookHandler("expression.learn.before_upsert", error_policy=ErrorPolicy.ABORT)
    async def fail_and_abort(self, **kwargs: Any) -> None:
        if kwargs["situation"] == "boom-abort":
            raise RuntimeError("the abort handler broke")

    @HookHandler("expression.learn.before_upsert", error_policy=ErrorPolicy.SKIP)
    async def fail_and_skip(self, **kwargs: Any) -> None:
        if kwargs["situation"] == "boom-skip":
            raise RuntimeError("the skip handler broke")

    @HookHandler("expression.learn.before_upsert", order=HookOrder.LATE)
    async def mark_late(self, **kwargs: Any) -> dict[str, Any]:
        return {"modified_kwargs": {**kwargs, "style": kwargs["style"] + "+late"}}

    @HookHandler("jargon.extract.before_persist", timeout_ms=300)
    async def too_slow(self, **kwargs: Any) -> None:
        await asyncio.sleep(5)

    @HookHandler("jargon.extract.before_persist", order=HookOrder.LATE)
    async def after_slow(self, **kwargs: Any) -> dict[str, Any]:
        return {"modified_kwargs": {**kwargs, "entries": [{"content": "late"}]}}

    @HookHandler("jargon.inference.before_finalize", timeout_ms=300)
    async def stall(self, **kwargs: Any) -> None:
        await asyncio.sleep(5)

    @HookHandler("heart_fc.heart_flow_cycle_start", name="stale_hook")
    async def stale_hook(self, **kwargs: Any) -> None:
        return None


def create_plugin() -> HookFixtures:
    return HookFixtures()
