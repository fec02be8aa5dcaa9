"""MaiBot 1.3's tool semantics, as a MaiBot plugin declares them."""

from typing import Any

from maibot_sdk import Field, MaiBotPlugin, PluginConfigBase, Tool
from maibot_sdk.types import ToolParameterInfo, ToolParamType


class PluginSection(PluginConfigBase):
    config_version: str = Field(default="1.0.0", description="Config version")
    enabled: bool = Field(default=True, description="Whether the plugin is enabled")


class CheerSection(PluginConfigBase):
    word: str = Field(default="hooray", description="What a cheer says")
    times: int = Field(default=1, ge=1, le=5, description="How many times, 1 to 5")


class SemanticsConfig(PluginConfigBase):
    plugin: PluginSection = Field(default_factory=PluginSection)
    cheer: CheerSection = Field(default_factory=CheerSection)


class SemanticsPlugin(MaiBotPlugin):
    config_model = SemanticsConfig

    async def on_load(self) -> None:
        pass

    async def on_unload(self) -> None:
        pass

    async def on_config_update(self, scope: str, config_data: dict[str, Any], version: str) -> None:
        pass

    @Tool(
        "telegram_sticker",
        description="Sends a Telegram sticker set.",
        parameters=[ToolParameterInfo(name="set", param_type=ToolParamType.STRING, description="The set")],
        platforms="telegram",
        core_tool=True,
    )
    async def handle_telegram_sticker(self, set: str, **kwargs: Any) -> dict[str, Any]:
        return {"content": f"sent {set} on {kwargs.get('platform', '')}"}

    @Tool("end_turn", description="Ends the planner round from its result.", core_tool=True)
    async def handle_end_turn(self, **kwargs: Any) -> dict[str, Any]:
        return {"content": "turn ended", "stop_after_execution": True}

    @Tool("always_ends", description="Declared to end the planner round.", stop_after_execution=True)
    async def handle_always_ends(self, **kwargs: Any) -> dict[str, Any]:
        return {"content": "ended by declaration"}

    @Tool("bad_stop", description="Answers stop_after_execution that is not a boolean.")
    async def handle_bad_stop(self, **kwargs: Any) -> dict[str, Any]:
        return {"content": "not really", "stop_after_execution": "yes"}

    @Tool("whose_tool", description="Says which plugin answered.")
    async def handle_whose_tool(self, **kwargs: Any) -> dict[str, Any]:
        return {"content": "examples.maibot_semantics"}

    @Tool("cheer", description="Cheers as configured.")
    async def handle_cheer(self, **kwargs: Any) -> dict[str, Any]:
        cheer = self.config.cheer
        return {"content": " ".join([cheer.word] * cheer.times)}


def create_plugin() -> SemanticsPlugin:
    return SemanticsPlugin()
