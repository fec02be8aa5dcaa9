"""Calls other plugins' APIs through maibot_sdk, as market plugins do, and reports what the SDK
handed it as JSON: `consume_api` (api.call), `consume_listing` (api.list and api.get), and
`notify_group`, which calls the QQ adapter's `adapter.napcat.message.send_msg` and falls back to
`send.text` when the call answers `{success: false}`, as market plugins do."""

import json
from typing import Any

from maibot_sdk import MaiBotPlugin, Tool
from maibot_sdk.types import ToolParameterInfo, ToolParamType


def report(value: Any) -> dict[str, Any]:
    return {"content": json.dumps(value, ensure_ascii=False)}


class ApiConsumer(MaiBotPlugin):
    async def on_load(self) -> None:
        pass

    async def on_unload(self) -> None:
        pass

    async def on_config_update(self, scope: str, config_data: dict[str, Any], version: str) -> None:
        pass

    @Tool(
        "consume_api",
        description="Calls an API and reports the answer.",
        parameters=[
            ToolParameterInfo(name="api_name", param_type=ToolParamType.STRING, description="The API"),
            ToolParameterInfo(
                name="args_json", param_type=ToolParamType.STRING, description="Its arguments", required=False
            ),
        ],
    )
    async def handle_consume_api(self, api_name: str, args_json: str = "{}", **kwargs: Any) -> dict[str, Any]:
        try:
            answer = await self.ctx.api.call(api_name, **json.loads(args_json))
        except Exception as error:  # the runner raises "[E_CODE] message" for a refused capability
            return report({"raised": str(error)})
        return report({"answer": answer})

    @Tool("consume_listing", description="Lists the APIs this plugin can call.")
    async def handle_consume_listing(self, **kwargs: Any) -> dict[str, Any]:
        listed = await self.ctx.api.list()
        today = await self.ctx.api.get("weather.today")
        secret = await self.ctx.api.get("weather.secret")
        return report(
            {
                "listed": sorted(f"{api['plugin_id']}:{api['name']}@{api['version']}" for api in listed),
                "today_public": today["public"] if today else None,
                "secret": secret,
            }
        )

    @Tool(
        "notify_group",
        description="Tells a group something, through the QQ adapter if there is one.",
        parameters=[ToolParameterInfo(name="text", param_type=ToolParamType.STRING, description="What to say")],
    )
    async def handle_notify_group(self, text: str, stream_id: str = "", **kwargs: Any) -> dict[str, Any]:
        answer = await self.ctx.api.call(
            "adapter.napcat.message.send_msg", message_type="group", group_id="10001", message=text
        )
        if isinstance(answer, dict) and answer.get("success") is False:
            await self.ctx.send.text(text, stream_id)
            return report({"fell_back": True, "error": answer.get("error")})
        return report({"fell_back": False, "answer": answer})


def create_plugin() -> ApiConsumer:
    return ApiConsumer()
