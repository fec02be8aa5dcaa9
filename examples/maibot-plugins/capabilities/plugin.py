"""A MaiBot plugin that calls the host's capabilities through maibot_sdk, as any MaiBot plugin
does, and reports what came back as JSON, so a test can check what the SDK handed the plugin.

One tool per group of capabilities; each is prefixed `caps_`:

- `caps_send_and_read`: send.text and the message.* readers over what it sent;
- `caps_send_kinds`: send.image, .emoji, .hybrid, .forward, .command and .custom, each read
  back by message.get_by_id (with its image data) and message.get_recent;
- `caps_world`: chat, person, emoji and knowledge reads over the seeded world, and a refusal;
- `caps_history`: message.get_by_time(_in_chat), person.get_id, and the chat.* listings;
- `caps_emoji_library`: every emoji.* capability, registering and deleting an emoji;
- `caps_config_and_tools`: config.get_plugin, config.get_all and tool.get_definitions;
- `caps_plugins` and `caps_switch`: the privileged component.* capabilities;
- `caps_llm`: llm.*;
- `caps_database`: database.* over the store's MaiBot tables, and a write refused;
- `caps_render`: render.html2png of a card;
- `caps_images`: a message's image segments, with and without their bytes;
- `caps_context`: chat.open_session and maisaka.context.append;
- `caps_proactive`: maisaka.proactive.trigger with a fallback that runs only on
  `{success: false}`, as a market plugin (A_chatter's scheduled tasks) falls back.
"""

import base64
import hashlib
import json
import struct
import zlib
from typing import Any

from maibot_sdk import MaiBotPlugin, Tool
from maibot_sdk.types import ToolParameterInfo, ToolParamType


def tiny_png(red: int, green: int, blue: int) -> str:
    """A valid 1x1 PNG of one colour, base64-encoded: each colour is a distinct image (hash)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    pixels = zlib.compress(bytes([0, red, green, blue]))  # filter byte, then the pixel
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    return base64.b64encode(png).decode("ascii")


def report(value: dict[str, Any]) -> dict[str, Any]:
    """A tool result whose content is the report as JSON."""
    return {"content": json.dumps(value, ensure_ascii=False)}


async def refusal(call: Any) -> str:
    """What the runner raised for a call the host refused (its code and message)."""
    try:
        await call
    except Exception as error:  # the runner raises "[E_CODE] message"
        return str(error)
    return "not refused"


def png_size(png: bytes) -> list[int]:
    """Width and height from a PNG's header, or [] when the bytes are not a PNG."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        return []
    return list(struct.unpack(">II", png[16:24]))


class StoreCapabilities:
    """The tools over the store's MaiBot tables, the renderer and the Maisaka context (a
    mixin of the plugin below: the SDK finds tools on the instance)."""

    ctx: Any

    @Tool(
        "caps_database",
        description="Reads people, messages and streams through database.*, and tries a write.",
        parameters=[],
    )
    async def handle_database(self, **kwargs: Any) -> dict[str, Any]:
        db = self.ctx.db
        people = await db.get("PersonInfo", order_by="person_id")
        alice = await db.get("PersonInfo", filters={"user_nickname": "Ali"}, single_result=True)
        nobody = await db.get("PersonInfo", filters={"person_id": "p-nobody"}, single_result=True)
        group = await db.query("Messages", filters={"session_id": "demo-group"}, order_by=["-timestamp"], limit=2)
        sessions = await db.get("ChatSession", order_by="session_id")
        saved = await db.save("PersonInfo", {"person_id": "p-mallory", "user_nickname": "M"})
        deleted = await db.delete("PersonInfo", {"person_id": "p-bob"})
        unknown = await db.get("ChatStreams")
        return report(
            {
                "people": [(p["person_id"], p["person_name"], p["user_nickname"]) for p in people],
                "alice": {k: alice[k] for k in ("person_id", "platform", "user_id", "is_known")},
                "alice_points": json.loads(alice["memory_points"]),
                "nobody": nobody,
                "group": [m["message_id"] for m in group],
                "group_first_text": group[0]["processed_plain_text"],
                "sessions": [(s["session_id"], s["group_id"], s["user_id"]) for s in sessions],
                "count": await db.count("PersonInfo"),
                "count_bob": await db.count("PersonInfo", filters={"user_id": "u-bob"}),
                "saved": saved,
                "deleted": deleted,
                "unknown": unknown,
                "count_after": await db.count("PersonInfo"),
            }
        )

    @Tool(
        "caps_render",
        description="Renders an HTML card to a PNG through render.html2png.",
        parameters=[ToolParameterInfo(name="selector", param_type=ToolParamType.STRING, description="Element")],
    )
    async def handle_render(self, selector: str, **kwargs: Any) -> dict[str, Any]:
        html = (
            "<html><body style='margin:0'><div id='card' style='width:200px;height:120px;"
            "background:#2a6;font:20px sans-serif;color:#fff'>hello card</div></body></html>"
        )
        rendered = await self.ctx.render.html2png(
            html, selector=selector, viewport={"width": 640, "height": 480}, device_scale_factor=2.0
        )
        if "image_base64" not in rendered:
            return report({"rendered": False, "answer": rendered})
        png = base64.b64decode(rendered["image_base64"])
        return report(
            {
                "rendered": True,
                "signature_ok": png[:8] == b"\x89PNG\r\n\x1a\n",
                "size": png_size(png),
                "reported": [rendered["width"], rendered["height"]],
                "mime_type": rendered["mime_type"],
            }
        )

    @Tool(
        "caps_images",
        description="Reads a message's image segments without and with their bytes.",
        parameters=[ToolParameterInfo(name="message_id", param_type=ToolParamType.STRING, description="Message")],
    )
    async def handle_images(self, message_id: str, **kwargs: Any) -> dict[str, Any]:
        plain = await self.ctx.message.get_by_id(message_id)
        full = await self.ctx.message.get_by_id(message_id, include_binary_data=True)

        def images(message: dict[str, Any]) -> list[dict[str, Any]]:
            return [s for s in message["raw_message"] if s["type"] == "image"]

        with_bytes = images(full)
        return report(
            {
                "plain": images(plain),
                "hashes": [s["hash"] for s in with_bytes],
                "descriptions": [s["data"] for s in with_bytes],
                "bytes_match_hash": [
                    hashlib.sha256(base64.b64decode(s["binary_data_base64"])).hexdigest() == s["hash"]
                    for s in with_bytes
                ],
            }
        )

    @Tool(
        "caps_context",
        description="Opens a group's session and appends a context note to it.",
        parameters=[ToolParameterInfo(name="group_id", param_type=ToolParamType.STRING, description="Group")],
    )
    async def handle_context(self, group_id: str, **kwargs: Any) -> dict[str, Any]:
        opened = await self.ctx.chat.open_session(platform="qq", chat_type="group", group_id=group_id)
        stream_id = opened["stream_id"]
        appended = await self.ctx.maisaka.context.append(
            stream_id,
            [{"type": "text", "content": "[card] Alice: 7/10"}],
            visible_text="sent Alice's card",
        )
        recent = await self.ctx.message.get_recent(stream_id, limit=3)
        return report(
            {
                "created": opened["created"],
                "stream_id": stream_id,
                "appended": {k: appended[k] for k in ("success", "visible_text", "source_kind")},
                "last_text": recent[-1]["processed_plain_text"],
                "last_sender": recent[-1]["message_info"]["user_info"]["user_nickname"],
            }
        )

    @Tool(
        "caps_proactive",
        description="Asks for a proactive round; when that fails, says the text itself.",
        parameters=[ToolParameterInfo(name="stream_id", param_type=ToolParamType.STRING, description="Stream")],
    )
    async def handle_proactive(self, stream_id: str, **kwargs: Any) -> dict[str, Any]:
        # The pattern of a market plugin's scheduled task: no try/except, the fallback runs
        # only when the host answers `{success: false}`; an exception would end the task.
        result = await self.ctx.maisaka.trigger_proactive(stream_id, "remind the group", reason="schedule")
        if isinstance(result, dict) and result.get("success") is False:
            sent = await self.ctx.send.text("Reminder: game night at 8.", stream_id)
            return report({"path": "fallback", "sent": sent, "error": result.get("error")})
        return report({"path": "proactive", "result": result})


class CapabilitiesPlugin(StoreCapabilities, MaiBotPlugin):
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
            # MaiBot's host raises this one's failures (no adapter): so does maitool.
            await self.ctx.chat.get_avatar("qq", "u-alice")
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
        "caps_send_kinds",
        description="Sends an image, an emoji, a hybrid, a forward, a command and a custom message "
        "to a stream, and reads each back by id and the stream's recent history.",
        parameters=[ToolParameterInfo(name="stream_id", param_type=ToolParamType.STRING, description="Stream")],
    )
    async def handle_send_kinds(self, stream_id: str, **kwargs: Any) -> dict[str, Any]:
        image = tiny_png(255, 0, 0)
        emoji = tiny_png(0, 255, 0)
        send = self.ctx.send
        sent = {
            "image": await send.image(image, stream_id, return_details=True),
            "emoji": await send.emoji(emoji, stream_id, return_details=True),
            "hybrid": await send.hybrid(
                [{"type": "text", "content": "look: "}, {"type": "image", "content": image}],
                stream_id,
                return_details=True,
            ),
            "forward": await send.forward(
                [{"user_id": "u-bob", "nickname": "Bob", "segments": [{"type": "text", "content": "quoted"}]}],
                stream_id,
                return_details=True,
            ),
            "command": await send.command("/roll d20", stream_id, return_details=True),
            "custom": await send.custom("dice", {"faces": 20}, stream_id, return_details=True),
        }
        # Without return_details the SDK hands back only whether it was sent.
        plain = await send.custom("note", "plain", stream_id)
        read_back = {}
        for kind, details in sent.items():
            message = await self.ctx.message.get_by_id(
                details["message_id"], stream_id=stream_id, include_binary_data=True
            )
            images = [s["binary_data_base64"] for s in message["raw_message"] if s["type"] == "image"]
            read_back[kind] = {
                "sent": details["sent"],
                "message_id": details["message_id"],
                "text": message["processed_plain_text"],
                "segments": [s["type"] for s in message["raw_message"]],
                "images_intact": [data == (emoji if kind == "emoji" else image) for data in images],
                "sender": message["message_info"]["user_info"]["user_nickname"],
            }
        recent = await self.ctx.message.get_recent(stream_id, limit=10)
        return report(
            {
                "kinds": read_back,
                "plain": plain,
                "recent_ids": [m["message_id"] for m in recent],
                "recent_texts": [m["processed_plain_text"] for m in recent],
            }
        )

    @Tool(
        "caps_history",
        description="Reads the seeded history by time, a person by account, and the chat streams by kind.",
        parameters=[],
    )
    async def handle_history(self, **kwargs: Any) -> dict[str, Any]:
        def ids(messages: list[dict[str, Any]]) -> list[str]:
            return [m["message_id"] for m in messages]

        message, chat = self.ctx.message, self.ctx.chat
        everything = await message.get_by_time("0", "1764666000")
        latest_two = await message.get_by_time("0", "1764666000", limit=2)
        earliest_two = await message.get_by_time("0", "1764666000", limit=2, limit_mode="earliest")
        in_group = await message.get_by_time_in_chat("demo-group", "1764662460", "1764662520")
        groups = await chat.get_group_streams()
        private = await chat.get_private_streams()
        carol = await chat.get_stream_by_user_id("u-carol")
        nobody = await chat.get_stream_by_user_id("10001")  # a group id, not a user's
        return report(
            {
                "everything": ids(everything),
                "latest_two": ids(latest_two),
                "earliest_two": ids(earliest_two),
                "in_group": ids(in_group),
                "in_group_texts": [m["processed_plain_text"] for m in in_group],
                "in_group_senders": [m["message_info"]["user_info"]["user_nickname"] for m in in_group],
                "bob": await self.ctx.person.get_id("qq", "u-bob"),
                "stranger": await self.ctx.person.get_id("qq", "u-nobody"),
                "groups": [(s["stream_id"], s["group_id"], s["group_name"]) for s in groups],
                "private": [(s["stream_id"], s["user_id"], s["user_nickname"]) for s in private],
                "carol": carol["stream_id"] if carol else None,
                "nobody": nobody,
            }
        )

    @Tool(
        "caps_emoji_library",
        description="Lists and searches the emoji library, registers an emoji and deletes it again.",
        parameters=[],
    )
    async def handle_emoji_library(self, **kwargs: Any) -> dict[str, Any]:
        emoji = self.ctx.emoji
        library = await emoji.get_all()
        picked = await emoji.get_random(2)
        found = await emoji.get_by_description("angry")
        info = await emoji.get_info()
        png = tiny_png(0, 0, 255)
        registered = await emoji.register_emoji(png)
        after_register = await emoji.get_count()
        listed_after = await emoji.get_all()
        again = await emoji.register_emoji(png)
        deleted = await emoji.delete_emoji(registered["hash"])
        after_delete = await emoji.get_count()
        missing = await emoji.delete_emoji(registered["hash"])
        return report(
            {
                "library": [(e["description"], e["emotion"]) for e in library],
                "picked": [e["description"] for e in picked],
                "found": found["description"] if found else None,
                "info": info,
                "registered": registered["success"],
                "hash_is_sha256": registered["hash"] == hashlib.sha256(base64.b64decode(png)).hexdigest(),
                "after_register": after_register,
                "registered_listed": [
                    (e["description"], e["emotion"]) for e in listed_after if e["base64"] == png
                ],
                "again": again["message"],
                "deleted": deleted["success"],
                "after_delete": after_delete,
                "missing": missing["success"],
            }
        )

    @Tool(
        "caps_config_and_tools",
        description="Reads this plugin's own configuration, tries another plugin's, and lists the host's tools.",
        parameters=[],
    )
    async def handle_config_and_tools(self, **kwargs: Any) -> dict[str, Any]:
        definitions = await self.ctx.tool.get_definitions()
        mine = [d for d in definitions if d["name"] == "caps_config_and_tools"]
        return report(
            {
                "own": await self.ctx.config.get_plugin(),
                "all": await self.ctx.config.get_all(),
                "other": await refusal(self.ctx.config.get_plugin("examples.maibot_typed")),
                "tools": sorted(d["name"] for d in definitions),
                "own_description": mine[0]["definition"]["description"] if mine else None,
            }
        )

    @Tool(
        "caps_plugins",
        description="Lists the host's plugins and their components (privileged: component.*).",
        parameters=[],
    )
    async def handle_plugins(self, **kwargs: Any) -> dict[str, Any]:
        component = self.ctx.component
        everything = await component.get_all_plugins()
        info = await component.get_plugin_info("examples.maibot_typed")
        return report(
            {
                "plugins": {
                    plugin_id: {
                        "version": plugin["version"],
                        "components": sorted(f"{c['type']}:{c['name']}" for c in plugin["components"]),
                    }
                    for plugin_id, plugin in everything.items()
                },
                "info": {key: info[key] for key in ("name", "version", "enabled")},
                "unknown": await refusal(component.get_plugin_info("nobody.here")),
                "loaded": sorted(await component.list_loaded_plugins()),
                "registered": sorted(await component.list_registered_plugins()),
            }
        )

    @Tool(
        "caps_switch",
        description="Enables or disables a component globally (privileged: component.*).",
        parameters=[
            ToolParameterInfo(name="name", param_type=ToolParamType.STRING, description="Component name"),
            ToolParameterInfo(name="component_type", param_type=ToolParamType.STRING, description="tool, action, …"),
            ToolParameterInfo(name="enabled", param_type=ToolParamType.BOOLEAN, description="On or off"),
        ],
    )
    async def handle_switch(self, name: str, component_type: str, enabled: bool, **kwargs: Any) -> dict[str, Any]:
        component = self.ctx.component
        if enabled:
            switched = await component.enable_component(name, component_type)
        else:
            switched = await component.disable_component(name, component_type)
        states = [
            c["enabled"]
            for plugin in (await component.get_all_plugins()).values()
            for c in plugin["components"]
            if c["name"] == name
        ]
        return report({"switched": switched, "enabled_now": states})

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
