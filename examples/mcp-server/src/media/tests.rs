use super::*;

#[test]
fn crc32_matches_the_reference_value() {
    assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
}

#[test]
fn adler32_matches_the_reference_value() {
    assert_eq!(adler32(b"Wikipedia"), 0x11e6_0398);
}

#[test]
fn png_and_wav_have_their_signatures() {
    let png = tiny_png();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert!(png.ends_with(&[0xae, 0x42, 0x60, 0x82])); // CRC of an empty IEND
    let wav = beep_wav();
    assert_eq!(&wav[..4], b"RIFF");
    assert_eq!(&wav[8..16], b"WAVEfmt ");
    assert_eq!(wav.len(), 44 + 1600);
}
