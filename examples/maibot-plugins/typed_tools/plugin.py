"""MaiBot-style tools with typed parameters, written against maibot-plugin-sdk.

This folder is what a MaiBot user already has: maitool runs it with MaiBot's own runner,
unmodified.
"""

from typing import Any

from maibot_sdk import MaiBotPlugin, Tool
from maibot_sdk.types import ToolParameterInfo, ToolParamType


class TypedToolsPlugin(MaiBotPlugin):
    async def on_load(self) -> None:
        self.ctx.logger.info("typed tools loaded")

    async def on_unload(self) -> None:
        pass

    async def on_config_update(self, scope: str, config_data: dict[str, Any], version: str) -> None:
        pass

    @Tool(
        "echo_text",
        description="Returns the text it is given.",
        parameters=[ToolParameterInfo(name="text", param_type=ToolParamType.STRING, description="Text to echo")],
        core_tool=True,
    )
    async def handle_echo_text(self, text: str, **kwargs: Any) -> dict[str, Any]:
        return {"content": text}

    @Tool(
        "quote_order",
        description="Prices an order of several items.",
        parameters=[
            ToolParameterInfo(name="item", param_type=ToolParamType.STRING, description="What to order"),
            ToolParameterInfo(name="quantity", param_type=ToolParamType.INTEGER, description="How many"),
            ToolParameterInfo(
                name="unit_price", param_type=ToolParamType.FLOAT, description="Price of one", required=False, default=1.5
            ),
            ToolParameterInfo(
                name="express", param_type=ToolParamType.BOOLEAN, description="Express delivery", required=False
            ),
            ToolParameterInfo(
                name="size",
                param_type=ToolParamType.STRING,
                description="Package size",
                required=False,
                enum_values=["small", "medium", "large"],
            ),
            ToolParameterInfo(
                name="tags",
                param_type=ToolParamType.ARRAY,
                description="Labels for the order",
                required=False,
                items_schema={"type": "string"},
            ),
            ToolParameterInfo(
                name="address",
                param_type=ToolParamType.OBJECT,
                description="Where to deliver",
                required=False,
                properties={"city": {"type": "string"}, "zip": {"type": "string"}},
                required_properties=["city"],
            ),
        ],
        core_tool=True,
    )
    async def handle_quote_order(
        self,
        item: str,
        quantity: int,
        unit_price: float = 1.5,
        express: bool = False,
        size: str = "medium",
        tags: list[str] | None = None,
        address: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        if quantity <= 0:
            return {"success": False, "error": f"quantity must be positive, got {quantity}"}
        total = quantity * unit_price + (5 if express else 0)
        city = (address or {}).get("city", "-")
        labels = ",".join(tags or [])
        return {"content": f"{quantity} x {item} ({size}) = {total:.2f}; tags [{labels}]; to {city}"}

    @Tool(
        "post_note",
        description="Posts a note to the current chat stream.",
        parameters=[ToolParameterInfo(name="note", param_type=ToolParamType.STRING, description="The note")],
        core_tool=True,
    )
    async def handle_post_note(self, note: str, stream_id: str = "", **kwargs: Any) -> dict[str, Any]:
        if not stream_id:
            return {"success": False, "error": "no stream to post to"}
        sent = await self.ctx.send.text(f"note: {note}", stream_id)
        return {"content": f"posted to {stream_id}" if sent else "not posted", "success": bool(sent)}

    @Tool("fail_loudly", description="Raises, to show how a failing handler is reported.", core_tool=True)
    async def handle_fail_loudly(self, **kwargs: Any) -> str:
        raise RuntimeError("this tool always fails")


def create_plugin() -> TypedToolsPlugin:
    return TypedToolsPlugin()
