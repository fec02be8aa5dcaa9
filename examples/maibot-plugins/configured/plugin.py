"""A MaiBot plugin with a config.toml and a typed config model."""

from typing import Any, ClassVar

from maibot_sdk import Field, MaiBotPlugin, PluginConfigBase, Tool
from maibot_sdk.types import ToolParameterInfo, ToolParamType


class PluginSection(PluginConfigBase):
    config_version: str = Field(default="1.0.0", description="Config version")
    enabled: bool = Field(default=True, description="Whether the plugin is enabled")


class GreetingSection(PluginConfigBase):
    __ui_label__: ClassVar[str] = "Greeting"
    salutation: str = Field(default="Hello", description="The word a greeting starts with")
    punctuation: str = Field(default="!", description="How a greeting ends")


class ConfiguredConfig(PluginConfigBase):
    plugin: PluginSection = Field(default_factory=PluginSection)
    greeting: GreetingSection = Field(default_factory=GreetingSection)


class ConfiguredPlugin(MaiBotPlugin):
    config_model = ConfiguredConfig

    async def on_load(self) -> None:
        pass

    async def on_unload(self) -> None:
        pass

    async def on_config_update(self, scope: str, config_data: dict[str, Any], version: str) -> None:
        self.ctx.logger.info(f"config updated ({scope}, {version})")

    @Tool(
        "configured_greeting",
        description="Greets with the configured salutation.",
        parameters=[
            ToolParameterInfo(name="name", param_type=ToolParamType.STRING, description="Who", required=False)
        ],
        core_tool=True,
    )
    async def handle_configured_greeting(self, name: str = "world", **kwargs: Any) -> dict[str, Any]:
        greeting = self.config.greeting
        return {"content": f"{greeting.salutation}, {name}{greeting.punctuation}"}


def create_plugin() -> ConfiguredPlugin:
    return ConfiguredPlugin()
