//! Info buffer decoding (in progress).
