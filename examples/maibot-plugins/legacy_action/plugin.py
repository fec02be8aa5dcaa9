"""A legacy MaiBot @Action with parameters, written against maibot-plugin-sdk."""

from typing import Any

from maibot_sdk import Action, MaiBotPlugin


class LegacyActionPlugin(MaiBotPlugin):
    async def on_load(self) -> None:
        pass

    async def on_unload(self) -> None:
        pass

    async def on_config_update(self, scope: str, config_data: dict[str, Any], version: str) -> None:
        pass

    @Action(
        "welcome",
        description="Greets someone in the chat.",
        action_parameters={"name": "Who to greet", "mood": "cheerful or formal"},
        action_require=["Use when someone joins the chat"],
        core_tool=True,
    )
    async def handle_welcome(self, name: str = "", mood: str = "cheerful", stream_id: str = "", **kwargs: Any):
        if not name:
            return False, "nobody to greet: `name` is empty"
        text = f"Hello, {name}!" if mood != "formal" else f"Good day, {name}."
        if stream_id:
            await self.ctx.send.text(text, stream_id)
        return True, text


def create_plugin() -> LegacyActionPlugin:
    return LegacyActionPlugin()
