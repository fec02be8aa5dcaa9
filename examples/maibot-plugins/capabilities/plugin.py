"""A MaiBot plugin that calls the host's capabilities through maibot_sdk, as any MaiBot plugin
does, and reports what came back as JSON, so a test can check what the SDK handed the plugin.
"""

import json
from typing import Any

from maibot_sdk import MaiBotPlugin, Tool
from maibot_sdk.types import ToolParameterInfo, ToolParamType


class CapabilitiesPlugin(MaiBotPlugin):
    async def on_load(self) -> None:
        pass

    async def on_unload(self) -> None:
        pass

    async def on_config_update(self, scope: str, config_data: dict[str, Any], version: str) -> None:
        pass

    @Tool(
        "caps_send_and_read",
        description="Sends a text to a stream, then reads the stream's history back.",
        parameters=[
            ToolParameterInfo(name="stream_id", param_type=ToolParamType.STRING, description="Stream"),
            ToolParameterInfo(name="text", param_type=ToolParamType.STRING, description="Text to send"),
        ],
    )
    async def handle_send_and_read(self, stream_id: str, text: str, **kwargs: Any) -> dict[str, Any]:
        sent = await self.ctx.send.text(text, stream_id)
        details = await self.ctx.send.text(text + "!", stream_id, return_details=True)
        message = await self.ctx.message.get_by_id(details["message_id"])
        recent = await self.ctx.message.get_recent(stream_id, limit=5)
        readable = await self.ctx.message.build_readable(recent)
        count = await self.ctx.message.count_new(stream_id, since="0")
        nickname = await self.ctx.config.get("bot.nickname", "nobody")
        report = {
            "sent": sent,
            "details_sent": details["sent"],
            "message_text": message["processed_plain_text"],
            "recent_texts": [m["processed_plain_text"] for m in recent],
            "readable": readable,
            "count": count,
            "nickname": nickname,
        }
        return {"content": json.dumps(report, ensure_ascii=False)}

    @Tool(
        "caps_world",
        description="Reads streams, people, emojis and knowledge, and tries a refused capability.",
        parameters=[],
    )
    async def handle_world(self, **kwargs: Any) -> dict[str, Any]:
        streams = await self.ctx.chat.get_all_streams()
        group = await self.ctx.chat.get_stream_by_group_id("10001")
        person_id = await self.ctx.person.get_id_by_name("Allie")
        profile = await self.ctx.person.get_value(person_id, "profile")
        knowledge = await self.ctx.knowledge.search("dice", limit=3)
        try:
            await self.ctx.db.query("Messages")
            refused = "not refused"
        except Exception as error:  # the runner raises the host's error message
            refused = str(error)
        report = {
            "streams": sorted(s["stream_id"] for s in streams),
            "group": group["stream_id"] if group else None,
            "person_id": person_id,
            "profile": profile,
            "emoji_count": await self.ctx.emoji.get_count(),
            "emotions": await self.ctx.emoji.get_emotions(),
            "knowledge": knowledge,
            "refused": refused,
        }
        return {"content": json.dumps(report, ensure_ascii=False)}

    @Tool(
        "caps_llm",
        description="Asks the host's language model, with and without a tool, and embeds a text.",
        parameters=[ToolParameterInfo(name="prompt", param_type=ToolParamType.STRING, description="Prompt")],
    )
    async def handle_llm(self, prompt: str, **kwargs: Any) -> dict[str, Any]:
        models = await self.ctx.llm.get_available_models()
        answer = await self.ctx.llm.generate(prompt, model="utils", temperature=0.3)
        weather = {
            "name": "weather",
            "description": "The weather in a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
        with_tools = await self.ctx.llm.generate_with_tools(prompt, [weather], model_name=models[-1])
        embedded = await self.ctx.llm.embed(prompt)
        report = {
            "models": models,
            "response": answer["response"],
            "model": answer["model"],
            "tokens": answer["total_tokens"],
            "tool_calls": with_tools["tool_calls"],
            "tool_model": with_tools["model"],
            "embedding": embedded["embedding"],
        }
        return {"content": json.dumps(report, ensure_ascii=False)}


def create_plugin() -> CapabilitiesPlugin:
    return CapabilitiesPlugin()
