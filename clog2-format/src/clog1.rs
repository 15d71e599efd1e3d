//! Old CLOG (MPE1).
