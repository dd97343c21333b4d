//! Arbitrary bytes through the npy reader: never a panic; whatever it accepts survives a
//! write and a second read unchanged.

pub fn run(bytes: &[u8]) {
    if let Ok(t) = bcast::npy::from_bytes(bytes) {
        if let Ok(again) = bcast::npy::to_bytes(&t) {
            let back = bcast::npy::from_bytes(&again).expect("our own output reads back");
            assert!(back.bit_equal(&t));
        }
    }
}
