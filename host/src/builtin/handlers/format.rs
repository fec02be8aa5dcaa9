//! How handlers render records for the model: times, history lines, schema fragments.

use maitool_protocol::JsonObject;
use serde_json::Value;

use crate::builtin::engine::HistoryMessage;

/// Unix seconds as `YYYY-MM-DD HH:MM` (UTC).
pub(crate) fn datetime(unix: f64) -> String {
    let seconds = unix.floor() as i64;
    let (days, rest) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rest / 3_600,
        rest % 3_600 / 60
    )
}

/// One history message as a line: `[msg_id] time sender: text (extras)`.
pub(crate) fn message_line(message: &HistoryMessage) -> String {
    let sender = if message.sender_name.is_empty() {
        message.sender_id.as_str()
    } else {
        message.sender_name.as_str()
    };
    let bot = if message.is_bot { " (you)" } else { "" };
    let mut line = format!(
        "[{}] {} {sender}{bot}: {}",
        message.message_id,
        datetime(message.time),
        message.text.trim()
    );
    let mut extras = Vec::new();
    if let Some(quoted) = &message.reply_to {
        extras.push(format!("quoting {quoted}"));
    }
    if message.image_count > 0 {
        extras.push(format!("{} image(s)", message.image_count));
    }
    if !message.mentions.is_empty() {
        extras.push(format!("mentions {}", message.mentions.join(", ")));
    }
    if message.is_forward {
        extras.push("forwarded messages; open with view_forward_message".into());
    }
    if !extras.is_empty() {
        line.push_str(&format!(" ({})", extras.join("; ")));
    }
    line
}

/// An object schema from `(name, property schema)` pairs and the required names.
pub(crate) fn object_schema(properties: Vec<(&str, Value)>, required: &[&str]) -> JsonObject {
    let properties: JsonObject = properties
        .into_iter()
        .map(|(name, schema)| (name.to_owned(), schema))
        .collect();
    let mut schema = JsonObject::new();
    schema.insert("type".into(), Value::from("object"));
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert(
        "required".into(),
        required.iter().map(|name| Value::from(*name)).collect(),
    );
    schema
}

#[cfg(test)]
mod tests;
