//! Tiny media files built in code, so the server ships no binary assets: an 8x8 PNG and a
//! short WAV tone.

use std::f64::consts::PI;

/// An 8x8 RGB PNG with a red-to-blue gradient. Uses stored (uncompressed) deflate blocks,
/// which every PNG decoder accepts.
pub fn tiny_png() -> Vec<u8> {
    const SIZE: u8 = 8;
    let mut raw = Vec::new();
    for y in 0..SIZE {
        raw.push(0); // filter type: none
        for x in 0..SIZE {
            raw.extend_from_slice(&[x * 32, 128, y * 32]);
        }
    }

    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&u32::from(SIZE).to_be_bytes());
    ihdr.extend_from_slice(&u32::from(SIZE).to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB, deflate, no filter, no interlace

    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(&mut png, b"IDAT", &zlib_stored(&raw));
    chunk(&mut png, b"IEND", &[]);
    png
}

/// A 0.1 s 440 Hz tone: mono, 8 kHz, 16-bit PCM, with a short fade in and out.
pub fn beep_wav() -> Vec<u8> {
    const RATE: u32 = 8000;
    const SAMPLES: u32 = RATE / 10;
    let mut data = Vec::with_capacity(SAMPLES as usize * 2);
    for n in 0..SAMPLES {
        let t = f64::from(n) / f64::from(RATE);
        let edge = f64::from(n.min(SAMPLES - 1 - n)) / 80.0;
        let amplitude = 8000.0 * edge.min(1.0);
        let sample = (amplitude * (2.0 * PI * 440.0 * t).sin()) as i16;
        data.extend_from_slice(&sample.to_le_bytes());
    }
    let data_len = data.len() as u32;
    let mut wav = Vec::with_capacity(44 + data.len());
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&RATE.to_le_bytes());
    wav.extend_from_slice(&(RATE * 2).to_le_bytes()); // byte rate
    wav.extend_from_slice(&2u16.to_le_bytes()); // block align
    wav.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());
    wav.extend_from_slice(&data);
    wav
}

fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = png.len();
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let crc = crc32(&png[start..]);
    png.extend_from_slice(&crc.to_be_bytes());
}

/// A zlib stream of stored blocks (no compression).
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let mut blocks = data.chunks(u16::MAX as usize).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = blocks.next() {
        out.push(u8::from(blocks.peek().is_none()));
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for byte in data {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xedb8_8320 & mask);
        }
    }
    !crc
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for byte in data {
        a = (a + u32::from(*byte)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests;
