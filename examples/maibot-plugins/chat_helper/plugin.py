"""A MaiBot plugin whose tool uses the host's chat world, as plugins in the wild do: it reads the
latest messages of the chat, looks up the person who spoke last, sends them an emoji, and asks
the language model for an encouraging line.
"""

import time
from typing import Any

from maibot_sdk import MaiBotPlugin, Tool


class ChatHelperPlugin(MaiBotPlugin):
    async def on_load(self) -> None:
        pass

    async def on_unload(self) -> None:
        pass

    async def on_config_update(self, scope: str, config_data: dict[str, Any], version: str) -> None:
        pass

    @Tool(
        "cheer_up",
        description="Cheers up whoever spoke last in this chat: an emoji, then a friendly line.",
        core_tool=True,
    )
    async def handle_cheer_up(self, stream_id: str = "", **kwargs: Any) -> dict[str, Any]:
        if not stream_id:
            return {"success": False, "error": "cheer_up needs a chat (stream_id)"}
        # The chat's latest messages, however long ago they were written.
        found = await self.ctx.message.get_by_time_in_chat(
            stream_id, "0", str(time.time()), limit=5, limit_mode="latest", filter_mai=True
        )
        messages = found.get("messages", []) if isinstance(found, dict) else (found or [])
        if not messages:
            return {"success": False, "error": f"nobody has spoken in {stream_id} yet"}
        last = messages[-1]
        sender = last["message_info"]["user_info"]
        person_id = await self.ctx.person.get_id(last.get("platform") or "qq", sender["user_id"])
        name = sender.get("user_nickname") or sender["user_id"]
        profile = ""
        if person_id:
            name = await self.ctx.person.get_value(person_id, "person_name") or name
            profile = await self.ctx.person.get_value(person_id, "profile") or ""
        emojis = await self.ctx.emoji.get_random(1)
        emoji = (emojis.get("emojis") if isinstance(emojis, dict) else emojis) or []
        if emoji:
            await self.ctx.send.emoji(emoji[0]["base64"], stream_id)
        answer = await self.ctx.llm.generate(
            f"Write one short encouraging line for {name}. About them: {profile or 'unknown'}. "
            f"They last said: {last.get('processed_plain_text', '')}"
        )
        line = answer.get("response", "") if isinstance(answer, dict) else str(answer)
        return {"content": f"to {name}: {line}", "emoji_sent": bool(emoji)}


def create_plugin() -> ChatHelperPlugin:
    return ChatHelperPlugin()
