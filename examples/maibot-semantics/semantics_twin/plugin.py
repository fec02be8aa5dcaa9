"""A MaiBot plugin whose tool has the name of another plugin's tool."""

from typing import Any

from maibot_sdk import MaiBotPlugin, Tool


class TwinPlugin(MaiBotPlugin):
    async def on_load(self) -> None:
        pass

    async def on_unload(self) -> None:
        pass

    async def on_config_update(self, scope: str, config_data: dict[str, Any], version: str) -> None:
        pass

    @Tool("whose_tool", description="Says which plugin answered.")
    async def handle_whose_tool(self, **kwargs: Any) -> dict[str, Any]:
        return {"content": "examples.maibot_semantics_twin"}

    @Tool("telegram_or_qq", description="Offered on two platforms.", platforms=["Telegram", "QQ"])
    async def handle_telegram_or_qq(self, **kwargs: Any) -> dict[str, Any]:
        return {"content": f"on {kwargs.get('platform', '')}"}


def create_plugin() -> TwinPlugin:
    return TwinPlugin()
