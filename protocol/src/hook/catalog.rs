//! MaiBot 1.3's named hooks: each hook's kwargs and what its handlers may do, as MaiBot 1.3.15
//! registers them (names, kwargs, flags and timeouts are MaiBot's; the descriptions are ours).

use serde_json::{Value, json};

/// One kwarg of a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookParameter {
    /// The kwarg's name.
    pub name: &'static str,
    /// Its JSON type (`string`, `integer`, `boolean`, `array`, `object`).
    pub kind: &'static str,
    /// The JSON type of an array's items, when the hook says.
    pub items: Option<&'static str>,
    /// Whether whoever runs the hook always passes it.
    pub required: bool,
    /// What it holds.
    pub description: &'static str,
}

/// A named hook: its kwargs and what its handlers may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookSpec {
    /// The hook's name, e.g. `maisaka.planner.before_request`.
    pub name: &'static str,
    /// When it runs and what it is for.
    pub description: &'static str,
    /// Its kwargs.
    pub parameters: &'static [HookParameter],
    /// A handler's timeout when it declares none; 0: the host's default.
    pub default_timeout_ms: u64,
    /// Whether blocking handlers may subscribe.
    pub allow_blocking: bool,
    /// Whether observe handlers may subscribe.
    pub allow_observe: bool,
    /// Whether a handler may abort the point (by answering `abort`, or through
    /// `error_policy = abort`).
    pub allow_abort: bool,
    /// Whether a blocking handler's `modified_kwargs` are taken.
    pub allow_kwargs_mutation: bool,
}

impl HookSpec {
    /// The kwarg called `name`.
    pub fn parameter(&self, name: &str) -> Option<&'static HookParameter> {
        self.parameters.iter().find(|p| p.name == name)
    }

    /// The kwargs as an object JSON Schema (`type`, `properties`, `required`).
    pub fn parameters_schema(&self) -> Value {
        let mut properties = serde_json::Map::new();
        for parameter in self.parameters {
            let mut schema = json!({
                "type": parameter.kind,
                "description": parameter.description,
            });
            if let Some(items) = parameter.items {
                schema["items"] = json!({ "type": items });
            }
            properties.insert(parameter.name.to_owned(), schema);
        }
        let required: Vec<&str> = self
            .parameters
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name)
            .collect();
        json!({ "type": "object", "properties": properties, "required": required })
    }
}

/// The hook named `name`, if MaiBot's catalogue has it.
pub fn spec(name: &str) -> Option<&'static HookSpec> {
    let name = name.trim();
    CATALOG.iter().find(|spec| spec.name == name)
}

const fn param(
    name: &'static str,
    kind: &'static str,
    required: bool,
    description: &'static str,
) -> HookParameter {
    HookParameter {
        name,
        kind,
        items: None,
        required,
        description,
    }
}

const fn list(
    name: &'static str,
    items: &'static str,
    required: bool,
    description: &'static str,
) -> HookParameter {
    HookParameter {
        name,
        kind: "array",
        items: Some(items),
        required,
        description,
    }
}

/// A hook whose handlers may abort and change the kwargs (most of them).
const fn hook(
    name: &'static str,
    description: &'static str,
    parameters: &'static [HookParameter],
    default_timeout_ms: u64,
    allow_abort: bool,
    allow_kwargs_mutation: bool,
) -> HookSpec {
    HookSpec {
        name,
        description,
        parameters,
        default_timeout_ms,
        allow_blocking: true,
        allow_observe: true,
        allow_abort,
        allow_kwargs_mutation,
    }
}

const MESSAGE: HookParameter = param("message", "object", true, "The message, serialised.");
const SESSION_ID: HookParameter = param("session_id", "string", true, "The session.");
const STREAM_ID: HookParameter = param("stream_id", "string", true, "The chat stream.");
const ITEMS: HookParameter = list(
    "items",
    "object",
    true,
    "The context items of the model request.",
);
const OUTPUT_ITEMS: HookParameter = list(
    "output_items",
    "object",
    true,
    "The context items the model answered.",
);
const ITEM_SCHEMA_VERSION: HookParameter = param(
    "item_schema_version",
    "integer",
    true,
    "Version of the context-item payload.",
);
const SELECTED_HISTORY_COUNT: HookParameter = param(
    "selected_history_count",
    "integer",
    true,
    "History messages chosen for the request.",
);
const BUILT_MESSAGE_COUNT: HookParameter = param(
    "built_message_count",
    "integer",
    true,
    "Messages actually sent to the model.",
);
const SELECTION_REASON: HookParameter = param(
    "selection_reason",
    "string",
    true,
    "Why this context was chosen.",
);
const PROMPT_TOKENS: HookParameter = param("prompt_tokens", "integer", true, "Input tokens.");
const COMPLETION_TOKENS: HookParameter =
    param("completion_tokens", "integer", true, "Output tokens.");
const TOTAL_TOKENS: HookParameter = param("total_tokens", "integer", true, "All tokens.");
const REQUEST_TYPE: HookParameter = param(
    "request_type",
    "string",
    true,
    "The kind of replyer request.",
);
const ATTEMPT: HookParameter = param("attempt", "integer", true, "This attempt, from 1.");
const RETRY_COUNT: HookParameter = param("retry_count", "integer", true, "Retries so far.");
const MAX_RETRIES: HookParameter = param("max_retries", "integer", true, "Retries allowed.");
const REPLY_MESSAGE_ID: HookParameter = param(
    "reply_message_id",
    "string",
    true,
    "The message replied to; empty for none.",
);
const REPLY_REASON: HookParameter = param("reply_reason", "string", true, "Why the bot replies.");
const SELECTED_EXPRESSION_IDS: HookParameter = list(
    "selected_expression_ids",
    "integer",
    true,
    "Expressions chosen for the reply.",
);
const REPLY_TOOL_ARGS: HookParameter = param(
    "reply_tool_args",
    "object",
    true,
    "Extra arguments of the reply tool.",
);
const TYPING: HookParameter = param("typing", "boolean", true, "Whether typing is simulated.");
const SET_REPLY: HookParameter = param(
    "set_reply",
    "boolean",
    true,
    "Whether the message quotes another.",
);
const STORAGE_MESSAGE: HookParameter = param(
    "storage_message",
    "boolean",
    true,
    "Whether the sent message is stored.",
);
const SHOW_LOG: HookParameter = param("show_log", "boolean", true, "Whether sending is logged.");
const SEND_REPLY_MESSAGE_ID: HookParameter =
    param("reply_message_id", "string", false, "The message quoted.");
const COMMAND_NAME: HookParameter = param("command_name", "string", true, "The matched command.");
const COMMAND_PLUGIN_ID: HookParameter =
    param("plugin_id", "string", true, "The command's plugin.");
const MATCHED_GROUPS: HookParameter = param(
    "matched_groups",
    "object",
    true,
    "The named groups of the command's pattern.",
);
const REQUESTED_EMOTION: HookParameter = param(
    "requested_emotion",
    "string",
    true,
    "The emotion asked for.",
);
const EMOJI_REASONING: HookParameter = param("reasoning", "string", true, "Why an emoji is sent.");
const CONTEXT_TEXTS: HookParameter = list("context_texts", "string", true, "Recent chat lines.");
const SAMPLE_SIZE: HookParameter = param(
    "sample_size",
    "integer",
    true,
    "How many candidate emoji are sampled.",
);
const ABORT_MESSAGE: HookParameter = param(
    "abort_message",
    "string",
    false,
    "What the caller reads when a handler aborts.",
);
const CHAT_ID: HookParameter = param("chat_id", "string", true, "The chat stream.");
const CHAT_INFO: HookParameter = param(
    "chat_info",
    "string",
    true,
    "The chat context expressions are chosen for.",
);
const MAX_NUM: HookParameter = param("max_num", "integer", true, "Most expressions chosen.");
const TARGET_MESSAGE: HookParameter =
    param("target_message", "string", false, "The text replied to.");
const SELECT_REPLY_REASON: HookParameter = param(
    "reply_reason",
    "string",
    false,
    "The planner's reason to reply.",
);
const THINK_LEVEL: HookParameter = param(
    "think_level",
    "integer",
    true,
    "How hard to think about it.",
);
const SESSION_NAME: HookParameter = param(
    "session_name",
    "string",
    true,
    "The session's display name.",
);

/// Every hook of MaiBot 1.3.15, by name.
pub const CATALOG: &[HookSpec] = &[
    hook(
        "chat.receive.before_process",
        "An incoming message, before it is processed: handlers may rewrite or drop it.",
        &[MESSAGE],
        0,
        true,
        true,
    ),
    hook(
        "chat.receive.after_process",
        "An incoming message after light processing: handlers may rewrite its text or stop it.",
        &[MESSAGE],
        0,
        true,
        true,
    ),
    hook(
        "chat.command.before_execute",
        "A message matched a command, which has not run yet: handlers may stop it or change \
         its context.",
        &[MESSAGE, COMMAND_NAME, COMMAND_PLUGIN_ID, MATCHED_GROUPS],
        0,
        true,
        true,
    ),
    hook(
        "chat.command.after_execute",
        "A command ran: handlers may change its reply text and whether the message goes on.",
        &[
            MESSAGE,
            COMMAND_NAME,
            COMMAND_PLUGIN_ID,
            MATCHED_GROUPS,
            param("success", "boolean", true, "Whether the command succeeded."),
            param("response", "string", false, "The command's reply text."),
            param(
                "intercept_message_level",
                "integer",
                true,
                "How far the command intercepts the message.",
            ),
            param(
                "continue_process",
                "boolean",
                true,
                "Whether the message goes on after the command.",
            ),
        ],
        0,
        false,
        true,
    ),
    hook(
        "emoji.maisaka.before_select",
        "The send-emoji tool is about to choose an emoji: handlers may change the emotion, \
         the context and the sample size, or stop the choice.",
        &[
            STREAM_ID,
            REQUESTED_EMOTION,
            EMOJI_REASONING,
            CONTEXT_TEXTS,
            SAMPLE_SIZE,
            ABORT_MESSAGE,
        ],
        5000,
        true,
        true,
    ),
    hook(
        "emoji.maisaka.after_select",
        "The send-emoji tool chose an emoji: handlers may replace it (by hash), change the \
         matched emotion, or stop the sending.",
        &[
            STREAM_ID,
            REQUESTED_EMOTION,
            EMOJI_REASONING,
            CONTEXT_TEXTS,
            SAMPLE_SIZE,
            param("selected_emoji", "object", false, "The chosen emoji."),
            param(
                "selected_emoji_hash",
                "string",
                false,
                "The chosen emoji's hash.",
            ),
            param(
                "matched_emotion",
                "string",
                true,
                "The emotion that matched.",
            ),
            ABORT_MESSAGE,
        ],
        5000,
        true,
        true,
    ),
    hook(
        "emoji.register.after_build_description",
        "A new emoji's description was generated: handlers may rewrite it or refuse the emoji.",
        &[
            param("emoji", "object", true, "The emoji being registered."),
            param("description", "string", true, "Its generated description."),
            param("image_format", "string", true, "Its image format."),
        ],
        5000,
        true,
        true,
    ),
    hook(
        "jargon.extract.before_persist",
        "Jargon entries are about to be stored: handlers may change them or skip storing.",
        &[
            SESSION_ID,
            SESSION_NAME,
            list("entries", "object", true, "The entries to store."),
        ],
        5000,
        true,
        true,
    ),
    hook(
        "jargon.inference.before_finalize",
        "A jargon meaning was inferred and is about to be stored: handlers may change the \
         verdict and the meaning.",
        &[
            SESSION_ID,
            SESSION_NAME,
            param("content", "string", true, "The jargon term."),
            param("count", "integer", true, "How often it was seen."),
            list(
                "raw_content_list",
                "string",
                true,
                "The lines it was inferred from.",
            ),
            param(
                "comparison_result",
                "object",
                true,
                "The comparison step's output.",
            ),
            param("is_jargon", "boolean", true, "Whether it is jargon."),
            param("meaning", "string", true, "The inferred meaning."),
            param("is_complete", "boolean", true, "Whether inference is done."),
            param(
                "last_inference_count",
                "integer",
                true,
                "The count to store as last inferred.",
            ),
        ],
        5000,
        true,
        true,
    ),
    hook(
        "expression.select.before_select",
        "Expressions are about to be chosen for a reply: handlers may change the context and \
         the limits, or stop the choice.",
        &[
            CHAT_ID,
            CHAT_INFO,
            MAX_NUM,
            TARGET_MESSAGE,
            SELECT_REPLY_REASON,
            THINK_LEVEL,
        ],
        5000,
        true,
        true,
    ),
    hook(
        "expression.select.after_selection",
        "Expressions were chosen: handlers may change the choice.",
        &[
            CHAT_ID,
            CHAT_INFO,
            MAX_NUM,
            TARGET_MESSAGE,
            SELECT_REPLY_REASON,
            THINK_LEVEL,
            list(
                "selected_expressions",
                "object",
                true,
                "The chosen expressions.",
            ),
            list("selected_expression_ids", "integer", true, "Their ids."),
        ],
        5000,
        true,
        true,
    ),
    hook(
        "expression.learn.after_extract",
        "Expression learning extracted candidates: handlers may change them or end the round.",
        &[
            SESSION_ID,
            param("message_count", "integer", true, "Messages learned from."),
            list("expressions", "object", true, "The candidates."),
            list(
                "jargon_entries",
                "object",
                true,
                "Always empty (jargon has its own learner).",
            ),
        ],
        5000,
        true,
        true,
    ),
    hook(
        "expression.learn.before_upsert",
        "An expression is about to be stored: handlers may rewrite it or skip it.",
        &[
            SESSION_ID,
            param("situation", "string", true, "The situation text."),
            param("style", "string", true, "The style text."),
        ],
        5000,
        true,
        true,
    ),
    hook(
        "send_service.after_build_message",
        "An outgoing message was built: handlers may rewrite it or cancel the sending.",
        &[
            MESSAGE,
            STREAM_ID,
            param(
                "processed_plain_text",
                "string",
                true,
                "Its plain text, if prepared.",
            ),
            TYPING,
            SET_REPLY,
            STORAGE_MESSAGE,
            SHOW_LOG,
        ],
        5000,
        true,
        true,
    ),
    hook(
        "send_service.before_send",
        "An outgoing message is about to go to the platform: handlers may rewrite it or \
         cancel the sending.",
        &[
            MESSAGE,
            TYPING,
            SET_REPLY,
            SEND_REPLY_MESSAGE_ID,
            STORAGE_MESSAGE,
            SHOW_LOG,
        ],
        5000,
        true,
        true,
    ),
    hook(
        "send_service.after_send",
        "A message was sent (or not): handlers observe the outcome.",
        &[
            MESSAGE,
            param("sent", "boolean", true, "Whether it was sent."),
            TYPING,
            SET_REPLY,
            SEND_REPLY_MESSAGE_ID,
            STORAGE_MESSAGE,
            SHOW_LOG,
        ],
        5000,
        false,
        false,
    ),
    hook(
        "maisaka.planner.before_request",
        "The planner is about to ask the model: handlers may rewrite the context items and \
         the tool definitions offered.",
        &[
            ITEMS,
            ITEM_SCHEMA_VERSION,
            list(
                "tool_definitions",
                "object",
                true,
                "The tools offered, as OpenAI function definitions.",
            ),
            SELECTED_HISTORY_COUNT,
            BUILT_MESSAGE_COUNT,
            SELECTION_REASON,
            SESSION_ID,
        ],
        6000,
        false,
        true,
    ),
    hook(
        "maisaka.planner.after_response",
        "The planner's model answered: handlers may adjust the output items.",
        &[
            OUTPUT_ITEMS,
            ITEM_SCHEMA_VERSION,
            SELECTED_HISTORY_COUNT,
            BUILT_MESSAGE_COUNT,
            SELECTION_REASON,
            SESSION_ID,
            PROMPT_TOKENS,
            COMPLETION_TOKENS,
            TOTAL_TOKENS,
        ],
        6000,
        false,
        true,
    ),
    hook(
        "maisaka.replyer.before_request",
        "The replyer is about to ask the model: handlers may change the task, the model and \
         an extra prompt.",
        &[
            SESSION_ID,
            REQUEST_TYPE,
            param("task_name", "string", true, "The model task."),
            param(
                "model_name",
                "string",
                true,
                "A model to use; empty: the task's choice.",
            ),
            param("extra_prompt", "string", true, "Extra reply instructions."),
            ATTEMPT,
            RETRY_COUNT,
            MAX_RETRIES,
            REPLY_MESSAGE_ID,
            REPLY_REASON,
            SELECTED_EXPRESSION_IDS,
            REPLY_TOOL_ARGS,
        ],
        6000,
        false,
        true,
    ),
    hook(
        "maisaka.replyer.before_model_request",
        "The replyer built its model request: handlers may rewrite the context items sent.",
        &[
            ITEMS,
            ITEM_SCHEMA_VERSION,
            SESSION_ID,
            REQUEST_TYPE,
            param("task_name", "string", true, "The model task."),
            param(
                "requested_model_name",
                "string",
                true,
                "The model a hook asked for.",
            ),
            param(
                "selected_model_name",
                "string",
                true,
                "The model chosen for this attempt.",
            ),
            param(
                "selected_model_visual",
                "boolean",
                true,
                "Whether that model sees images.",
            ),
            ATTEMPT,
            RETRY_COUNT,
            MAX_RETRIES,
            REPLY_MESSAGE_ID,
            REPLY_REASON,
            SELECTED_EXPRESSION_IDS,
            REPLY_TOOL_ARGS,
        ],
        6000,
        false,
        true,
    ),
    hook(
        "maisaka.replyer.after_response",
        "The replyer's model answered: handlers may rewrite the reply or ask for another one.",
        &[
            param("response", "string", true, "The visible reply text."),
            OUTPUT_ITEMS,
            ITEM_SCHEMA_VERSION,
            SESSION_ID,
            REQUEST_TYPE,
            param("task_name", "string", true, "The model task."),
            param(
                "requested_model_name",
                "string",
                true,
                "The model a hook asked for.",
            ),
            ATTEMPT,
            RETRY_COUNT,
            MAX_RETRIES,
            REPLY_MESSAGE_ID,
            SELECTED_EXPRESSION_IDS,
            REPLY_TOOL_ARGS,
            PROMPT_TOKENS,
            COMPLETION_TOKENS,
            TOTAL_TOKENS,
            param(
                "retry",
                "boolean",
                false,
                "Set true to have the reply generated again.",
            ),
            param(
                "retry_reason",
                "string",
                false,
                "What the next attempt is told.",
            ),
            param(
                "matched_regex",
                "string",
                false,
                "The rule that asked for a retry.",
            ),
            param(
                "matched_regex_pattern",
                "string",
                false,
                "That rule's pattern.",
            ),
            param(
                "matched_regex_description",
                "string",
                false,
                "That rule's description.",
            ),
        ],
        6000,
        false,
        true,
    ),
    hook(
        "maisaka.reply.before_post_process",
        "The final reply is about to be post-processed: handlers may change how (splitting, \
         typos) or skip it.",
        &[
            param("response", "string", true, "The reply text."),
            SESSION_ID,
            param(
                "reply_message_id",
                "string",
                true,
                "The message replied to.",
            ),
            REPLY_TOOL_ARGS,
            param(
                "skip_post_process",
                "boolean",
                true,
                "Skip all post-processing.",
            ),
            param(
                "enable_splitter",
                "boolean",
                true,
                "Allow splitting the reply.",
            ),
            param(
                "enable_chinese_typo",
                "boolean",
                true,
                "Allow injected typos.",
            ),
        ],
        6000,
        false,
        true,
    ),
];
