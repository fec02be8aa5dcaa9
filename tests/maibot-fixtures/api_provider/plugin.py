"""APIs for the end-to-end tests: `weather.today` (public), `weather.secret` (private to this
plugin, which its own tool `weather_self_check` calls), and `weather.live`, a dynamic API
registered at load, whose handler reports the arguments the host adds to a dynamic call."""

from typing import Any

from maibot_sdk import API, MaiBotPlugin, Tool


class ApiProvider(MaiBotPlugin):
    async def on_load(self) -> None:
        self.register_dynamic_api("weather.live", self.live_weather, description="Live weather", public=True)
        await self.sync_dynamic_apis()

    async def on_unload(self) -> None:
        pass

    async def on_config_update(self, scope: str, config_data: dict[str, Any], version: str) -> None:
        pass

    async def live_weather(self, **kwargs: Any) -> dict[str, Any]:
        return {"live": True, "called_as": kwargs.get("__maibot_api_name__"), "city": kwargs.get("city")}

    @API("weather.today", description="Today's weather in a city.", version="1", public=True)
    async def handle_weather_today(self, city: str = "nowhere", **kwargs: Any) -> dict[str, Any]:
        if city == "atlantis":
            raise ValueError("no weather station in atlantis")
        return {"city": city, "forecast": "sunny"}

    @API("weather.secret", description="Private to this plugin.")
    async def handle_weather_secret(self, **kwargs: Any) -> str:
        return "the secret forecast"

    @Tool("weather_self_check", description="Calls this plugin's own private API.", core_tool=True)
    async def handle_weather_self_check(self, **kwargs: Any) -> dict[str, Any]:
        secret = await self.ctx.api.call("weather.secret")
        return {"content": str(secret)}


def create_plugin() -> ApiProvider:
    return ApiProvider()
