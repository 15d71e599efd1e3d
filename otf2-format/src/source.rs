//! Where a reader's bytes come from: a file (opened for each read, so an
//! archive of thousands of locations holds no file descriptors between
//! reads) or bytes in memory.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::Arc;

/// Random-access bytes of known length.
pub trait Source {
    /// Length in bytes.
    ///
    /// ```
    /// use otf2_format::{MemSource, Source};
    /// assert_eq!(MemSource(std::sync::Arc::from(&b"OTF2"[..])).len(), 4);
    /// ```
    fn len(&self) -> u64;
    /// Whether there are no bytes.
    ///
    /// ```
    /// use otf2_format::{MemSource, Source};
    /// assert!(MemSource(std::sync::Arc::from(&b""[..])).is_empty());
    /// assert!(!MemSource(std::sync::Arc::from(&b"x"[..])).is_empty());
    /// ```
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Reads up to `buf.len()` bytes at `offset`; fewer only at the end.
    ///
    /// # Errors
    /// The underlying read's error.
    ///
    /// ```
    /// use otf2_format::{MemSource, Source};
    /// let mut src = MemSource(std::sync::Arc::from(&b"0123456789"[..]));
    /// let mut buf = [0u8; 4];
    /// assert_eq!(src.read_at(3, &mut buf)?, 4);
    /// assert_eq!(&buf, b"3456");
    /// assert_eq!(src.read_at(8, &mut buf)?, 2); // fewer at the end
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize>;
}

/// Bytes in memory, shared.
#[derive(Debug, Clone)]
pub struct MemSource(pub Arc<[u8]>);

impl Source for MemSource {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.0.len());
        let n = buf.len().min(self.0.len() - start);
        buf[..n].copy_from_slice(&self.0[start..start + n]);
        Ok(n)
    }
}

/// A file, opened for each read.
#[derive(Debug, Clone)]
pub struct FileSource {
    path: PathBuf,
    len: u64,
}

impl FileSource {
    /// The file at `path`, whose length is taken now.
    ///
    /// # Errors
    /// The file's metadata cannot be read.
    ///
    /// ```
    /// use otf2_format::{FileSource, Source};
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny/traces.otf2");
    /// let mut src = FileSource::new(path)?;
    /// assert_eq!(src.len(), std::fs::metadata(path)?.len());
    /// let mut magic = [0u8; 4];
    /// src.read_at(0, &mut magic)?;
    /// assert!(FileSource::new("/nonexistent/traces.otf2").is_err());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(path: impl Into<PathBuf>) -> std::io::Result<FileSource> {
        let path = path.into();
        let len = std::fs::metadata(&path)?.len();
        Ok(FileSource { path, len })
    }
}

impl Source for FileSource {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut f = File::open(&self.path)?;
        f.seek(SeekFrom::Start(offset))?;
        let mut done = 0;
        while done < buf.len() {
            match f.read(&mut buf[done..]) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(done)
    }
}
