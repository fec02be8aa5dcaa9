//! Tools that return an image content item and structured content.

use maitool_sdk::prelude::*;

/// Arguments of `render_badge`.
#[maitool_sdk::args]
struct BadgeArgs {
    /// Badge width in pixels (1 to 256).
    width: u32,
    /// Badge height in pixels (1 to 256).
    height: u32,
    /// RGB colour as `#rrggbb`.
    #[serde(default = "default_colour")]
    colour: String,
}

fn default_colour() -> String {
    "#3366cc".into()
}

/// Arguments of `describe_numbers`.
#[maitool_sdk::args]
struct StatsArgs {
    /// The numbers to summarise.
    numbers: Vec<f64>,
}

/// Summary statistics.
#[maitool_sdk::output]
struct Stats {
    count: usize,
    min: f64,
    max: f64,
    mean: f64,
}

fn main() {
    let media = Plugin::new("examples.media", "1.0.0")
        .name("Media")
        .description("Returns images and structured content.")
        .tool(
            Tool::new("render_badge", "Render a solid-colour PNG badge.", |args: BadgeArgs, _ctx: ToolContext| async move {
                if args.width == 0 || args.height == 0 || args.width > 256 || args.height > 256 {
                    return Err(ToolError::new("width and height must be between 1 and 256"));
                }
                let rgb = parse_colour(&args.colour).ok_or_else(|| ToolError::new(format!("bad colour {}", args.colour)))?;
                let png = png::solid(args.width, args.height, rgb);
                Ok(ToolOutput::item(ToolContentItem::image(png, "image/png").with_name("badge.png"))
                    .with_structured(json!({ "width": args.width, "height": args.height, "colour": args.colour })))
            })
            .core_tool(),
        )
        .tool(
            Tool::new("describe_numbers", "Summarise a list of numbers.", |args: StatsArgs, _ctx: ToolContext| async move {
                if args.numbers.is_empty() {
                    return Err(ToolError::new("numbers is empty"));
                }
                let count = args.numbers.len();
                let min = args.numbers.iter().copied().fold(f64::INFINITY, f64::min);
                let max = args.numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let mean = args.numbers.iter().sum::<f64>() / count as f64;
                // Typed: the SDK checks it is the `Stats` the tool declares.
                Ok(ToolOutput::typed(Stats { count, min, max, mean }))
            })
            // Deferred (the default for plugin tools): the model finds it with tool_search.
            .output::<Stats>(),
        );
    maitool_sdk::run([media]);
}

fn parse_colour(text: &str) -> Option<[u8; 3]> {
    let hex = text.strip_prefix('#')?;
    if hex.len() != 6 {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
    Some([byte(0)?, byte(2)?, byte(4)?])
}

/// A minimal PNG encoder (stored deflate blocks), enough for solid images.
mod png {
    pub fn solid(width: u32, height: u32, rgb: [u8; 3]) -> Vec<u8> {
        // Each scanline: filter type 0, then RGB triples.
        let mut row = vec![0u8];
        for _ in 0..width {
            row.extend_from_slice(&rgb);
        }
        let raw = row.repeat(height as usize);
        let mut out = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
        let mut ihdr = Vec::new();
        ihdr.extend_from_slice(&width.to_be_bytes());
        ihdr.extend_from_slice(&height.to_be_bytes());
        ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
        chunk(&mut out, b"IHDR", &ihdr);
        chunk(&mut out, b"IDAT", &zlib_stored(&raw));
        chunk(&mut out, b"IEND", &[]);
        out
    }

    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let crc = crc32(&out[start..]);
        out.extend_from_slice(&crc.to_be_bytes());
    }

    fn zlib_stored(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x78, 0x01];
        let blocks: Vec<&[u8]> = if data.is_empty() {
            vec![&[][..]]
        } else {
            data.chunks(65_535).collect()
        };
        for (i, block) in blocks.iter().enumerate() {
            out.push(u8::from(i + 1 == blocks.len()));
            let len = block.len() as u16;
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&(!len).to_le_bytes());
            out.extend_from_slice(block);
        }
        let (mut a, mut b) = (1u32, 0u32);
        for byte in data {
            a = (a + *byte as u32) % 65_521;
            b = (b + a) % 65_521;
        }
        out.extend_from_slice(&((b << 16) | a).to_be_bytes());
        out
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = 0xffff_ffffu32;
        for byte in data {
            crc ^= *byte as u32;
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    0xedb8_8320 ^ (crc >> 1)
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
}
