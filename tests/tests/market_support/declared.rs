//! What each fixture's code declares for its tools: (plugin id, [(tool, [(parameter, JSON
//! type, required)])]), read from the `@Tool` decorators in `tests/fixtures/market-plugins`
//! (parameter lists, `_tool_param`/`_param` helpers and their defaults, module-level
//! `ToolParameterInfo` constants, dict `parameters`). Plugins with no tools have none.

/// One tool: its name and its parameters (name, JSON Schema type, required).
pub type DeclaredTool = (&'static str, &'static [(&'static str, &'static str, bool)]);

pub const DECLARED: &[(&str, &[DeclaredTool])] = &[
    (
        "whitefox.weather-forecast",
        &[(
            "weather_query",
            &[("city", "string", true), ("days", "integer", false)],
        )],
    ),
    (
        "SengokuCola.maimai-birdwatching-plugin",
        &[
            ("recognize_animal", &[("msg_id", "string", true)]),
            ("recognize_bird", &[("msg_id", "string", true)]),
            ("recognize_dish", &[("msg_id", "string", true)]),
            ("recognize_plant", &[("msg_id", "string", true)]),
        ],
    ),
    (
        "sengokucola.self-identity-plugin",
        &[
            ("get_self_avatar", &[]),
            (
                "get_self_image",
                &[
                    ("image_index", "integer", false),
                    ("image_name", "string", false),
                ],
            ),
            (
                "search_self_infomation",
                &[
                    ("query", "string", false),
                    ("title", "string", false),
                    ("keyword", "string", false),
                    ("limit", "integer", false),
                ],
            ),
            ("view_all_image", &[("page", "integer", false)]),
        ],
    ),
    (
        "sengokucola.better-image",
        &[
            (
                "better_image_get",
                &[
                    ("msg_id", "string", true),
                    ("image_index", "integer", false),
                    ("coordinate_mode", "string", false),
                    ("crop_x", "number", false),
                    ("crop_y", "number", false),
                    ("crop_width", "number", false),
                    ("crop_height", "number", false),
                    ("scale", "number", false),
                    ("output_format", "string", false),
                    ("context_key", "string", false),
                ],
            ),
            (
                "better_image_search",
                &[
                    ("query", "string", true),
                    ("limit", "integer", false),
                    ("safe_search", "string", false),
                    ("context_prefix", "string", false),
                ],
            ),
        ],
    ),
    (
        "sengokucola.aliyun-tts-plugin",
        &[(
            "send_tts_voice",
            &[
                ("text", "string", true),
                ("voice", "string", false),
                ("instruction", "string", false),
                ("emotion", "string", false),
                ("scene", "string", false),
            ],
        )],
    ),
    (
        "com.0-hz.fetch-url",
        &[(
            "fetch_url",
            &[
                ("url", "string", true),
                ("start_char", "integer", false),
                ("end_char", "integer", false),
                ("on_exceed", "string", false),
                ("summary_focus", "string", false),
            ],
        )],
    ),
    (
        "com.0-hz.impression-card",
        &[
            (
                "adjust_score",
                &[
                    ("target", "string", false),
                    ("dimension", "string", false),
                    ("delta", "number", true),
                    ("reason", "string", false),
                ],
            ),
            (
                "append_impression",
                &[("content", "string", true), ("target", "string", false)],
            ),
            ("get_impression_detail", &[("target", "string", false)]),
            ("refresh_impression", &[("target", "string", false)]),
            (
                "rewrite_impression",
                &[("content", "string", true), ("target", "string", false)],
            ),
            (
                "send_impression_card",
                &[
                    ("target", "string", false),
                    ("refresh_first", "boolean", false),
                    ("radar_top_n", "integer", false),
                ],
            ),
            (
                "set_score",
                &[
                    ("target", "string", false),
                    ("dimension", "string", false),
                    ("value", "number", true),
                    ("reason", "string", false),
                ],
            ),
        ],
    ),
    (
        "com.0-hz.maibook",
        &[
            (
                "bookshelf_autopilot",
                &[
                    ("book", "string", true),
                    ("enabled", "boolean", true),
                    ("scope", "string", false),
                ],
            ),
            (
                "bookshelf_create",
                &[
                    ("title", "string", true),
                    ("premise", "string", false),
                    ("genre", "string", false),
                    ("autopilot", "boolean", false),
                    ("scope", "string", false),
                ],
            ),
            ("bookshelf_list", &[("scope", "string", false)]),
            (
                "bookshelf_meta",
                &[
                    ("book", "string", true),
                    ("updates", "object", true),
                    ("scope", "string", false),
                ],
            ),
            (
                "publish_cover",
                &[
                    ("book", "string", true),
                    ("style", "string", false),
                    ("scope", "string", false),
                ],
            ),
            (
                "publish_deliver",
                &[
                    ("book", "string", true),
                    ("format", "string", false),
                    ("scope", "string", false),
                    ("chapter", "integer", false),
                ],
            ),
            (
                "review_questions",
                &[("book", "string", true), ("scope", "string", false)],
            ),
            (
                "review_read",
                &[
                    ("book", "string", true),
                    ("chapter", "string", false),
                    ("target", "string", false),
                    ("scope", "string", false),
                    ("send", "string", false),
                ],
            ),
            (
                "review_ready",
                &[("book", "string", true), ("scope", "string", false)],
            ),
            (
                "setup_answer",
                &[
                    ("book", "string", true),
                    ("topic", "string", true),
                    ("answer", "string", true),
                    ("editor", "string", false),
                    ("bible_topic", "string", false),
                    ("clear_questions", "boolean", false),
                    ("scope", "string", false),
                ],
            ),
            (
                "setup_bible",
                &[
                    ("book", "string", true),
                    ("topic", "string", true),
                    ("content", "string", true),
                    ("mode", "string", false),
                    ("scope", "string", false),
                ],
            ),
            (
                "setup_instructions",
                &[
                    ("book", "string", true),
                    ("content", "string", false),
                    ("show_template", "boolean", false),
                    ("scope", "string", false),
                ],
            ),
            (
                "setup_outline",
                &[
                    ("book", "string", true),
                    ("content", "string", true),
                    ("mode", "string", false),
                    ("scope", "string", false),
                ],
            ),
            (
                "write_chapter",
                &[
                    ("book", "string", true),
                    ("chapter", "string", false),
                    ("overwrite", "boolean", false),
                    ("brief", "string", false),
                    ("content", "string", false),
                    ("target_words", "integer", false),
                    ("scope", "string", false),
                ],
            ),
            (
                "write_revise",
                &[
                    ("book", "string", true),
                    ("chapter", "integer", true),
                    ("instruction", "string", true),
                    ("editor", "string", false),
                    ("target_section", "string", false),
                    ("scope", "string", false),
                ],
            ),
            (
                "write_status",
                &[
                    ("task_id", "string", false),
                    ("book", "string", false),
                    ("scope", "string", false),
                ],
            ),
        ],
    ),
    (
        "davidblackcn.maibot-message-react-plugin",
        &[("msg_react", &[("target_message_id", "string", false)])],
    ),
    ("E33EPUS.c-daily-problem", &[("get_daily_c_problem", &[])]),
    (
        "github.fffold.bangumi-browse-plugin",
        &[
            ("get_bangumi_calendar", &[]),
            (
                "get_bangumi_episode_comments",
                &[("episode_id", "integer", true), ("limit", "integer", false)],
            ),
            (
                "get_bangumi_episodes",
                &[
                    ("subject_id", "integer", true),
                    ("ep_type", "string", false),
                    ("limit", "integer", false),
                ],
            ),
            (
                "get_bangumi_season",
                &[
                    ("year", "integer", true),
                    ("month", "integer", false),
                    ("subject_type", "string", false),
                    ("category", "string", false),
                    ("limit", "integer", false),
                ],
            ),
            ("get_bangumi_subject", &[("subject_id", "integer", true)]),
            (
                "get_bangumi_subject_persons",
                &[
                    ("subject_id", "integer", true),
                    ("relation", "string", false),
                ],
            ),
            (
                "get_bangumi_subject_relations",
                &[("subject_id", "integer", true)],
            ),
            (
                "get_bangumi_subject_reviews",
                &[
                    ("subject_id", "integer", true),
                    ("review_id", "integer", false),
                    ("limit", "integer", false),
                ],
            ),
            (
                "search_bangumi_subject",
                &[
                    ("keyword", "string", true),
                    ("subject_type", "string", false),
                    ("sort", "string", false),
                    ("limit", "integer", false),
                ],
            ),
        ],
    ),
    ("com.0-hz.world-clock", &[]),
    (
        "com.0-hz.plastic-memory",
        &[
            (
                "append_instruction",
                &[
                    ("content", "string", false),
                    ("scope", "string", false),
                    ("insert_after_string", "string", false),
                ],
            ),
            ("compact_instructions", &[("scope", "string", false)]),
            (
                "rewrite_instruction",
                &[("content", "string", false), ("scope", "string", false)],
            ),
        ],
    ),
    ("TAIY2020.custom-commands-plugin", &[]),
    (
        "maibot-community.mai-love",
        &[
            ("mai_lover_affection", &[("level", "integer", true)]),
            ("mai_lover_config", &[]),
            ("mai_lover_current_activity", &[]),
            ("mai_lover_schedule", &[]),
            ("mai_lover_send_message", &[("message", "string", false)]),
            ("mai_lover_status", &[]),
        ],
    ),
];
