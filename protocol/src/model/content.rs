use serde::{Deserialize, Serialize};

use super::{BinaryData, JsonObject, ToolAnnotation};

/// The kind of a [`ToolContentItem`]. Unknown kinds from newer peers decode as
/// [`ContentType::Unknown`] instead of failing the whole result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ContentType {
    /// Plain text.
    #[default]
    Text,
    /// An image; `data` holds the bytes and `mime_type` the format.
    Image,
    /// Audio; `data` holds the bytes and `mime_type` the format.
    Audio,
    /// A link to a resource by `uri`, with optional `name`, `description` and `mime_type`.
    ResourceLink,
    /// An embedded resource: `uri` plus either `text` or `data`.
    Resource,
    /// Opaque bytes with a `mime_type`.
    Binary,
    /// A kind this version does not know.
    #[serde(other)]
    Unknown,
}

impl ContentType {
    /// The wire name of the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            ContentType::Text => "text",
            ContentType::Image => "image",
            ContentType::Audio => "audio",
            ContentType::ResourceLink => "resource_link",
            ContentType::Resource => "resource",
            ContentType::Binary => "binary",
            ContentType::Unknown => "unknown",
        }
    }
}

/// One item of a tool result beyond its plain text: media, links, embedded resources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ToolContentItem {
    /// The kind of item. `type` is accepted as an alias on input.
    #[serde(alias = "type")]
    pub content_type: ContentType,
    /// Text of a text item or of an embedded text resource.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Bytes of an image, audio, blob resource or binary item.
    #[serde(skip_serializing_if = "BinaryData::is_empty")]
    pub data: BinaryData,
    /// MIME type of `data` or of the linked resource.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub mime_type: String,
    /// URI of a resource or resource link.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uri: String,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Description of a linked resource.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Audience and priority hints for this item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotation: Option<ToolAnnotation>,
    /// Anything else, for example `context_key` or `source_url`.
    #[serde(skip_serializing_if = "JsonObject::is_empty")]
    pub metadata: JsonObject,
}

impl ToolContentItem {
    /// A text item.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content_type: ContentType::Text,
            text: text.into(),
            ..Self::default()
        }
    }

    /// An image item from raw bytes.
    pub fn image(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        Self::media(ContentType::Image, data, mime_type)
    }

    /// An audio item from raw bytes.
    pub fn audio(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        Self::media(ContentType::Audio, data, mime_type)
    }

    /// An opaque binary item.
    pub fn binary(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        Self::media(ContentType::Binary, data, mime_type)
    }

    /// A link to a resource.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            content_type: ContentType::ResourceLink,
            uri: uri.into(),
            name: name.into(),
            ..Self::default()
        }
    }

    /// An embedded text resource.
    pub fn resource_text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            content_type: ContentType::Resource,
            uri: uri.into(),
            text: text.into(),
            ..Self::default()
        }
    }

    /// An embedded binary resource.
    pub fn resource_blob(
        uri: impl Into<String>,
        data: impl Into<Vec<u8>>,
        mime_type: impl Into<String>,
    ) -> Self {
        Self {
            content_type: ContentType::Resource,
            uri: uri.into(),
            data: BinaryData(data.into()),
            mime_type: mime_type.into(),
            ..Self::default()
        }
    }

    fn media(kind: ContentType, data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        Self {
            content_type: kind,
            data: BinaryData(data.into()),
            mime_type: mime_type.into(),
            ..Self::default()
        }
    }

    /// Sets the display name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = mime_type.into();
        self
    }

    /// The one-line text that stands for this item in conversation history, so that media
    /// bytes never enter a model's context. Empty for a blank text item.
    pub fn history_text(&self) -> String {
        let mime = if self.mime_type.is_empty() {
            "unknown"
        } else {
            &self.mime_type
        };
        let label = |fallback: &str| -> String {
            [&self.name, &self.uri]
                .into_iter()
                .find(|s| !s.is_empty())
                .cloned()
                .unwrap_or_else(|| fallback.to_owned())
        };
        match self.content_type {
            ContentType::Text => self.text.trim().to_owned(),
            ContentType::Image => format!("[image {mime}]"),
            ContentType::Audio => format!("[audio {mime}]"),
            ContentType::ResourceLink => format!("[resource link] {}", label("resource link")),
            ContentType::Resource if !self.text.trim().is_empty() => self.text.trim().to_owned(),
            ContentType::Resource => format!("[embedded resource] {}", label("embedded resource")),
            ContentType::Binary => format!("[binary {mime}]"),
            ContentType::Unknown => "[unknown content]".to_owned(),
        }
    }
}
