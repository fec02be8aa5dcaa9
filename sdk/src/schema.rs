//! JSON Schema generation for argument, output and configuration types.

use maitool_protocol::JsonObject;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;

/// The schema of `T` as a self-contained object schema: subschemas inlined (model APIs do not
/// resolve `$ref`), no `$schema` key, only standard formats (see [`standard_formats`]).
pub(crate) fn schema_for<T: JsonSchema>() -> JsonObject {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut value = schema.to_value();
    standard_formats(&mut value);
    let mut object = match value {
        serde_json::Value::Object(object) => object,
        _ => JsonObject::new(),
    };
    object.remove("$schema");
    object.remove("title");
    if !object.contains_key("type") {
        object.insert("type".into(), "object".into());
    }
    if object.get("type").and_then(|t| t.as_str()) == Some("object")
        && !object.contains_key("properties")
    {
        object.insert("properties".into(), JsonObject::new().into());
    }
    object
}

/// Replaces schemars' Rust-type formats (`uint8`, `int32`, `uint`, `double`, ...), which no
/// JSON Schema draft defines and strict validators and model APIs reject or ignore, with what
/// they mean in standard keywords: an integer width becomes `minimum`/`maximum` (bounds
/// already present are kept; 64-bit and wider types get only `minimum: 0` when unsigned);
/// a float format is dropped.
fn standard_formats(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(object) => {
            let format = object.get("format").and_then(Value::as_str);
            let bounds: Option<(Value, Option<Value>)> = match format {
                Some("int8") => Some((i8::MIN.into(), Some(i8::MAX.into()))),
                Some("int16") => Some((i16::MIN.into(), Some(i16::MAX.into()))),
                Some("int32") => Some((i32::MIN.into(), Some(i32::MAX.into()))),
                Some("uint8") => Some((0.into(), Some(u8::MAX.into()))),
                Some("uint16") => Some((0.into(), Some(u16::MAX.into()))),
                Some("uint32") => Some((0.into(), Some(u32::MAX.into()))),
                // Bounds past 2^53 are not portable JSON (JavaScript reads them as floats).
                Some("uint64" | "uint" | "uint128") => Some((0.into(), None)),
                _ => None,
            };
            // Float formats, and signed widths whose bounds are past 2^53: nothing to add.
            let dropped = matches!(
                format,
                Some("double" | "float" | "int64" | "int" | "int128")
            );
            if let Some((minimum, maximum)) = bounds {
                object.remove("format");
                object.entry("minimum").or_insert(minimum);
                if let Some(maximum) = maximum {
                    object.entry("maximum").or_insert(maximum);
                }
            } else if dropped {
                object.remove("format");
            }
            object.values_mut().for_each(standard_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(standard_formats),
        _ => {}
    }
}

/// Property names declared by an object schema.
pub(crate) fn property_names(schema: &JsonObject) -> Vec<String> {
    schema
        .get("properties")
        .and_then(|p| p.as_object())
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
