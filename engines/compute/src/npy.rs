//! A hardened reader for NumPy `.npy` files and `.npz` archives, shared by every loader.
//!
//! **NPY** (format versions 1.0, 2.0 and 3.0): the header's `descr` may be any of `f8`, `f4`,
//! `i8`, `i4`, `i2`, `i1`, `u8`, `u4`, `u2`, `u1` and `b1` (bool), little or big endian; every
//! value is read as `f64` ([`read_npy_f64`]), and `i1` arrays also as `i8` ([`read_npy_i8`]).
//! Fortran-ordered arrays are transposed to C (row-major) order, so values always come back in
//! C order for the returned shape.
//!
//! Untrusted input never panics and never makes the reader allocate for data that are not
//! really there: before any array is allocated, product(shape) × itemsize (with overflow
//! checked) must equal the number of data bytes present. A header longer than the file,
//! a non-ASCII (non-UTF-8 for version 3.0) header, object arrays (pickles), structured and
//! other dtypes are refused with an [`NpyError`] saying what is wrong. Errors do not name the
//! file: callers add it.
//!
//! **NPZ** (zip archives of `.npy` members, as `np.savez` and `np.savez_compressed` write
//! them): [`Npz`] lists the arrays and reads one by name, stored or deflate-compressed, with
//! zip64 records understood. A compressed member's declared size must agree with its NPY
//! header before anything is allocated, and inflation stops at that size, so a zip bomb is
//! refused instead of exhausting memory. CRC-32 checksums are verified.
//!
//! The byte-slice functions ([`read_npy_f64`], [`read_npy_i8`], [`list_npz`],
//! [`read_npz_f64`]) suit fuzzing; [`read_file`] reads a whole file after checking its size
//! against [`MAX_FILE_BYTES`].

mod npz;

pub use npz::{Npz, list_npz, read_npz_f64};

use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;

use thiserror::Error;

/// The largest file [`read_file`] reads (8 GiB).
pub const MAX_FILE_BYTES: u64 = 8 << 30;

/// The longest NPY header read, in bytes (NumPy's own headers are a few hundred bytes).
pub const MAX_HEADER_BYTES: usize = 1 << 20;

/// The magic string that starts every `.npy` file.
const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// How deeply nested the header's Python literal may be.
const MAX_DEPTH: usize = 32;

/// What can be wrong with an NPY file or NPZ archive. Messages do not name the file.
#[derive(Debug, Error)]
pub enum NpyError {
    /// Reading the file failed.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    /// The file is larger than [`MAX_FILE_BYTES`].
    #[error("the file has {bytes} bytes, more than the {limit} bytes that are read")]
    FileTooLarge {
        /// The file's length.
        bytes: u64,
        /// [`MAX_FILE_BYTES`].
        limit: u64,
    },
    /// The bytes do not start with the NPY magic string.
    #[error("not a NumPy .npy file: {0}")]
    NotNpy(&'static str),
    /// A format version other than 1.0, 2.0 or 3.0.
    #[error("unsupported .npy format version {major}.{minor} (1.0, 2.0 and 3.0 are read)")]
    Version {
        /// Major version byte.
        major: u8,
        /// Minor version byte.
        minor: u8,
    },
    /// The header length field points past the end of the data.
    #[error("the .npy header claims {claimed} bytes but only {present} bytes follow the preamble")]
    HeaderBeyondEnd {
        /// Header length from the preamble.
        claimed: u64,
        /// Bytes actually left after the preamble.
        present: u64,
    },
    /// The header is longer than [`MAX_HEADER_BYTES`].
    #[error("the .npy header claims {claimed} bytes, more than the {limit} bytes that are read")]
    HeaderTooLong {
        /// Header length from the preamble.
        claimed: u64,
        /// [`MAX_HEADER_BYTES`].
        limit: usize,
    },
    /// The header is not ASCII (versions 1.0 and 2.0) or UTF-8 (version 3.0).
    #[error("the .npy header is not {0} text")]
    HeaderEncoding(&'static str),
    /// The header is not the dictionary NumPy writes.
    #[error("malformed .npy header: {0}")]
    Header(String),
    /// An object array: reading it would mean unpickling Python objects.
    #[error("object arrays (pickles) are not read")]
    ObjectArray,
    /// A dtype this reader does not convert.
    #[error(
        "dtype '{0}' is not read: use float (f8, f4), integer (i1–i8, u1–u8) or bool (b1) arrays"
    )]
    UnsupportedDtype(String),
    /// A dtype other than the one the caller asked for.
    #[error("the array's dtype is {found}, expected {expected}")]
    WrongDtype {
        /// What the caller reads, e.g. "int8 (i1)".
        expected: &'static str,
        /// The file's dtype, e.g. "float64 (<f8)".
        found: String,
    },
    /// The data bytes present are not what the shape and dtype need.
    #[error(
        "the header claims shape {shape} of {dtype}, which needs {needed} bytes of data, but \
         {present} bytes are present"
    )]
    SizeMismatch {
        /// The claimed shape, as a Python tuple.
        shape: String,
        /// The dtype's name.
        dtype: String,
        /// product(shape) × itemsize, or "more than 2^128" on overflow.
        needed: String,
        /// The data bytes actually present (or, in an archive, declared).
        present: u64,
    },
    /// An archive member's declared size disagrees with its NPY header.
    #[error(
        "the header claims shape {shape} of {dtype}, which needs {needed} bytes of data, but \
         the archive declares {declared}"
    )]
    DeclaredSize {
        /// The claimed shape, as a Python tuple.
        shape: String,
        /// The dtype's name.
        dtype: String,
        /// product(shape) × itemsize, or "more than 2^128" on overflow.
        needed: String,
        /// The data bytes the archive declares (its uncompressed size less the header).
        declared: u64,
    },
    /// An allocation for the array failed.
    #[error("cannot allocate {0} bytes for the array")]
    OutOfMemory(u64),
    /// The bytes are not a zip archive.
    #[error("not a NumPy .npz archive: {0}")]
    NotZip(&'static str),
    /// A zip structure is inconsistent or points outside the archive.
    #[error("damaged .npz archive: {0}")]
    Zip(String),
    /// No array of that name in the archive.
    #[error("no array `{name}` in the archive (found: {found})")]
    MissingArray {
        /// The name asked for.
        name: String,
        /// The arrays present, comma separated, or "none".
        found: String,
    },
    /// A zip compression method other than stored (0) and deflate (8).
    #[error("zip compression method {0} is not read (stored and deflate are)")]
    Compression(u16),
    /// An encrypted zip member.
    #[error("the archive member is encrypted")]
    Encrypted,
    /// The deflate stream is damaged or ends early.
    #[error("the compressed data are damaged: {0}")]
    Inflate(String),
    /// A member inflates to more than its declared size, or declares more than deflate can
    /// produce from its compressed bytes.
    #[error(
        "the member declares {declared} bytes from {compressed} compressed bytes but {why} \
         (a zip bomb or a damaged archive)"
    )]
    ZipBomb {
        /// Declared uncompressed size.
        declared: u64,
        /// Compressed size.
        compressed: u64,
        /// What gave it away.
        why: &'static str,
    },
    /// The member's CRC-32 does not match its data.
    #[error(
        "CRC-32 mismatch (stored {stored:08x}, computed {computed:08x}): the archive is damaged"
    )]
    Crc {
        /// CRC-32 from the central directory.
        stored: u32,
        /// CRC-32 of the data read.
        computed: u32,
    },
}

/// An element type the reader converts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    /// `b1` (or `?`): bool, one byte, zero is false.
    Bool,
    /// `i1`: int8.
    I8,
    /// `i2`: int16.
    I16,
    /// `i4`: int32.
    I32,
    /// `i8`: int64.
    I64,
    /// `u1`: uint8.
    U8,
    /// `u2`: uint16.
    U16,
    /// `u4`: uint32.
    U32,
    /// `u8`: uint64.
    U64,
    /// `f4`: float32.
    F32,
    /// `f8`: float64.
    F64,
}

impl DType {
    /// Bytes per element.
    pub const fn itemsize(self) -> usize {
        match self {
            Self::Bool | Self::I8 | Self::U8 => 1,
            Self::I16 | Self::U16 => 2,
            Self::I32 | Self::U32 | Self::F32 => 4,
            Self::I64 | Self::U64 | Self::F64 => 8,
        }
    }

    /// NumPy's name: `float64`, `int8`, `bool`, …
    pub const fn name(self) -> &'static str {
        match self {
            Self::Bool => "bool",
            Self::I8 => "int8",
            Self::I16 => "int16",
            Self::I32 => "int32",
            Self::I64 => "int64",
            Self::U8 => "uint8",
            Self::U16 => "uint16",
            Self::U32 => "uint32",
            Self::U64 => "uint64",
            Self::F32 => "float32",
            Self::F64 => "float64",
        }
    }
}

/// The parsed header of an NPY file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpyHeader {
    /// Element type.
    pub dtype: DType,
    /// Whether multi-byte elements are stored big-endian.
    pub big_endian: bool,
    /// Whether the data are in Fortran (column-major) order.
    pub fortran_order: bool,
    /// The array's shape (empty for a 0-d array).
    pub shape: Vec<usize>,
    /// The `descr` string as written, e.g. `<f8`.
    pub descr: String,
    /// Offset of the first data byte from the start of the file.
    pub data_offset: usize,
}

impl NpyHeader {
    /// product(shape) × itemsize, `None` on overflow.
    pub fn data_bytes(&self) -> Option<usize> {
        if self.shape.contains(&0) {
            return Some(0);
        }
        self.shape
            .iter()
            .try_fold(self.dtype.itemsize(), |acc, &d| acc.checked_mul(d))
    }

    /// The number of elements (product of the shape), `usize::MAX` if that overflows.
    pub fn len(&self) -> usize {
        if self.shape.contains(&0) {
            return 0;
        }
        self.shape
            .iter()
            .try_fold(1_usize, |acc, &d| acc.checked_mul(d))
            .unwrap_or(usize::MAX)
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.shape.contains(&0)
    }

    /// Checks that `present` data bytes are exactly what the shape and dtype need.
    pub fn check_data_bytes(&self, present: u64) -> Result<(), NpyError> {
        let needed = if self.shape.contains(&0) {
            Some(0_u128)
        } else {
            self.shape
                .iter()
                .try_fold(self.dtype.itemsize() as u128, |acc, &d| {
                    acc.checked_mul(d as u128)
                })
        };
        if needed == Some(u128::from(present)) {
            return Ok(());
        }
        Err(NpyError::SizeMismatch {
            shape: shape_tuple(&self.shape),
            dtype: format!("{} ({})", self.dtype.name(), self.descr),
            needed: needed.map_or_else(|| "more than 2^128".to_owned(), |n| n.to_string()),
            present,
        })
    }
}

/// `shape` as a Python tuple: `(3, 4)`, `(5,)`, `()`.
fn shape_tuple(shape: &[usize]) -> String {
    let mut text = String::from("(");
    for (i, d) in shape.iter().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        let _ = write!(text, "{d}");
    }
    if shape.len() == 1 {
        text.push(',');
    }
    text.push(')');
    text
}

// ---------------------------------------------------------------------------------------------
// Files.

/// Reads the whole file at `path`, refusing one larger than [`MAX_FILE_BYTES`] before reading.
pub fn read_file(path: &Path) -> Result<Vec<u8>, NpyError> {
    // Not blocking on a FIFO, nor reading a folder or device (the size is checked below).
    let (file, bytes) = crate::files::open_regular(path, u64::MAX)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    if bytes > MAX_FILE_BYTES {
        return Err(NpyError::FileTooLarge {
            bytes,
            limit: MAX_FILE_BYTES,
        });
    }
    let mut buffer = Vec::new();
    let capacity = usize::try_from(bytes).map_err(|_| NpyError::OutOfMemory(bytes))?;
    buffer
        .try_reserve_exact(capacity)
        .map_err(|_| NpyError::OutOfMemory(bytes))?;
    // The file may grow while it is read: never take more than the limit.
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut buffer)?;
    if buffer.len() as u64 > MAX_FILE_BYTES {
        return Err(NpyError::FileTooLarge {
            bytes: buffer.len() as u64,
            limit: MAX_FILE_BYTES,
        });
    }
    Ok(buffer)
}

/// Reads the `.npy` file at `path` as f64 values in C order, with its shape.
pub fn read_npy_f64_file(path: &Path) -> Result<(Vec<usize>, Vec<f64>), NpyError> {
    read_npy_f64(&read_file(path)?)
}

/// Reads the `.npy` file at `path`, which must hold an `i1` array, with its shape.
pub fn read_npy_i8_file(path: &Path) -> Result<(Vec<usize>, Vec<i8>), NpyError> {
    read_npy_i8(&read_file(path)?)
}

// ---------------------------------------------------------------------------------------------
// NPY from bytes.

/// Parses the header of the NPY file in `bytes` (only the header is looked at; the data size is
/// not checked, see [`NpyHeader::check_data_bytes`]).
pub fn parse_header(bytes: &[u8]) -> Result<NpyHeader, NpyError> {
    read_header(&mut &bytes[..], bytes.len() as u64)
}

/// Reads the NPY file in `bytes` as f64 values in C order, with its shape. Every supported
/// dtype converts (int64 and uint64 values beyond 2^53 are rounded; bools are 0 and 1).
pub fn read_npy_f64(bytes: &[u8]) -> Result<(Vec<usize>, Vec<f64>), NpyError> {
    let (header, data) = checked_parts(bytes)?;
    let mut values = allocate::<f64>(header.len())?;
    decode_f64(&header, data, &mut values);
    let values = to_c_order(&header, values)?;
    Ok((header.shape, values))
}

/// Reads the NPY file in `bytes`, which must hold an `i1` (int8) array, with its shape, in C
/// order.
pub fn read_npy_i8(bytes: &[u8]) -> Result<(Vec<usize>, Vec<i8>), NpyError> {
    let (header, data) = checked_parts(bytes)?;
    if header.dtype != DType::I8 {
        return Err(NpyError::WrongDtype {
            expected: "int8 (i1)",
            found: format!("{} ({})", header.dtype.name(), header.descr),
        });
    }
    let mut values = allocate::<i8>(header.len())?;
    values.extend(data.iter().map(|&b| i8::from_le_bytes([b])));
    let values = to_c_order(&header, values)?;
    Ok((header.shape, values))
}

/// The header and the data bytes, after checking that the data are exactly the right size.
fn checked_parts(bytes: &[u8]) -> Result<(NpyHeader, &[u8]), NpyError> {
    let header = parse_header(bytes)?;
    let data = bytes.get(header.data_offset..).unwrap_or_default();
    header.check_data_bytes(data.len() as u64)?;
    Ok((header, data))
}

/// An empty vector with room for `len` elements, or an error instead of an abort.
fn allocate<T>(len: usize) -> Result<Vec<T>, NpyError> {
    let mut values = Vec::new();
    values.try_reserve_exact(len).map_err(|_| {
        NpyError::OutOfMemory((len as u64).saturating_mul(std::mem::size_of::<T>() as u64))
    })?;
    Ok(values)
}

/// Reads the preamble and header from `reader`; `total` is the number of bytes the whole NPY
/// file has (to refuse a header length beyond it before reading the header).
fn read_header(reader: &mut impl Read, total: u64) -> Result<NpyHeader, NpyError> {
    if total < 10 {
        return Err(NpyError::NotNpy("too short for the NPY preamble"));
    }
    let mut preamble = [0_u8; 10];
    reader.read_exact(&mut preamble)?;
    if &preamble[..6] != MAGIC {
        return Err(NpyError::NotNpy(if preamble.starts_with(b"PK\x03\x04") {
            "it is a zip archive (.npz), not a .npy file"
        } else {
            "the magic string \\x93NUMPY is missing"
        }));
    }
    let (major, minor) = (preamble[6], preamble[7]);
    let (claimed, start) = match (major, minor) {
        (1, 0) => (
            u64::from(u16::from_le_bytes([preamble[8], preamble[9]])),
            10,
        ),
        (2 | 3, 0) => {
            if total < 12 {
                return Err(NpyError::NotNpy("too short for the NPY preamble"));
            }
            let mut rest = [0_u8; 2];
            reader.read_exact(&mut rest)?;
            let len = u32::from_le_bytes([preamble[8], preamble[9], rest[0], rest[1]]);
            (u64::from(len), 12)
        }
        _ => return Err(NpyError::Version { major, minor }),
    };
    let present = total - start as u64;
    if claimed > present {
        return Err(NpyError::HeaderBeyondEnd { claimed, present });
    }
    if claimed > MAX_HEADER_BYTES as u64 {
        return Err(NpyError::HeaderTooLong {
            claimed,
            limit: MAX_HEADER_BYTES,
        });
    }
    // Bounded by MAX_HEADER_BYTES just above.
    let mut text = vec![0_u8; claimed as usize];
    reader.read_exact(&mut text)?;
    let text = if major == 3 {
        std::str::from_utf8(&text).map_err(|_| NpyError::HeaderEncoding("UTF-8"))?
    } else {
        if !text.is_ascii() {
            return Err(NpyError::HeaderEncoding("ASCII"));
        }
        std::str::from_utf8(&text).map_err(|_| NpyError::HeaderEncoding("ASCII"))?
    };
    let mut header = header_from_text(text)?;
    header.data_offset = start + text.len();
    Ok(header)
}

/// The header dictionary's three keys, checked.
fn header_from_text(text: &str) -> Result<NpyHeader, NpyError> {
    let mut parser = Parser {
        text: text.as_bytes(),
        pos: 0,
        depth: 0,
    };
    let value = parser.value()?;
    parser.skip_space();
    if parser.pos != parser.text.len() {
        return Err(parser.error("unexpected text after the dictionary"));
    }
    let Literal::Dict(entries) = value else {
        return Err(NpyError::Header(
            "the header is not a dictionary".to_owned(),
        ));
    };
    let mut descr = None;
    let mut fortran = None;
    let mut shape = None;
    for (key, value) in entries {
        let Literal::Str(key) = key else {
            return Err(NpyError::Header(
                "a dictionary key is not a string".to_owned(),
            ));
        };
        let slot = match key.as_str() {
            "descr" => &mut descr,
            "fortran_order" => &mut fortran,
            "shape" => &mut shape,
            _ => continue,
        };
        if slot.replace(value).is_some() {
            return Err(NpyError::Header(format!("the key '{key}' appears twice")));
        }
    }
    let missing = |key: &str| NpyError::Header(format!("the key '{key}' is missing"));
    let descr = match descr.ok_or_else(|| missing("descr"))? {
        Literal::Str(s) => s,
        Literal::List(_) => {
            return Err(NpyError::UnsupportedDtype(
                "a structured dtype (a list of fields)".to_owned(),
            ));
        }
        _ => {
            return Err(NpyError::Header("'descr' is not a dtype string".to_owned()));
        }
    };
    let (dtype, big_endian) = parse_descr(&descr)?;
    let Literal::Bool(fortran_order) = fortran.ok_or_else(|| missing("fortran_order"))? else {
        return Err(NpyError::Header(
            "'fortran_order' is not True or False".to_owned(),
        ));
    };
    let (Literal::Tuple(dims) | Literal::List(dims)) = shape.ok_or_else(|| missing("shape"))?
    else {
        return Err(NpyError::Header("'shape' is not a tuple".to_owned()));
    };
    let shape = dims
        .into_iter()
        .map(|d| match d {
            Literal::Int(n) => usize::try_from(n).map_err(|_| {
                NpyError::Header(format!(
                    "'shape' has {n}, not a size from 0 to {}",
                    usize::MAX
                ))
            }),
            _ => Err(NpyError::Header(
                "'shape' holds something other than whole numbers".to_owned(),
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(NpyHeader {
        dtype,
        big_endian,
        fortran_order,
        shape,
        descr,
        data_offset: 0,
    })
}

/// The dtype and byte order of a `descr` string such as `<f8`.
fn parse_descr(descr: &str) -> Result<(DType, bool), NpyError> {
    let native_big = cfg!(target_endian = "big");
    let (big, code) = match descr.as_bytes().first() {
        Some(b'<') => (false, &descr[1..]),
        Some(b'>') => (true, &descr[1..]),
        Some(b'|' | b'=') => (native_big, &descr[1..]),
        _ => (native_big, descr),
    };
    if code.starts_with('O') {
        return Err(NpyError::ObjectArray);
    }
    let dtype = match code {
        "b1" | "?" => DType::Bool,
        "i1" => DType::I8,
        "i2" => DType::I16,
        "i4" => DType::I32,
        "i8" => DType::I64,
        "u1" => DType::U8,
        "u2" => DType::U16,
        "u4" => DType::U32,
        "u8" => DType::U64,
        "f4" => DType::F32,
        "f8" => DType::F64,
        _ => return Err(NpyError::UnsupportedDtype(descr.to_owned())),
    };
    Ok((dtype, big && dtype.itemsize() > 1))
}

/// Calls `f` with each `N`-byte element of `data`, in little-endian byte order.
fn each<const N: usize>(data: &[u8], big_endian: bool, mut f: impl FnMut([u8; N])) {
    for chunk in data.chunks_exact(N) {
        let mut bytes = [0_u8; N];
        bytes.copy_from_slice(chunk);
        if big_endian {
            bytes.reverse();
        }
        f(bytes);
    }
}

/// Appends the elements of `data` (already size-checked) to `out` as f64.
fn decode_f64(header: &NpyHeader, data: &[u8], out: &mut Vec<f64>) {
    let big = header.big_endian;
    match header.dtype {
        DType::Bool => out.extend(data.iter().map(|&b| f64::from(u8::from(b != 0)))),
        DType::I8 => out.extend(data.iter().map(|&b| f64::from(i8::from_le_bytes([b])))),
        DType::U8 => out.extend(data.iter().map(|&b| f64::from(b))),
        DType::I16 => each::<2>(data, big, |b| out.push(f64::from(i16::from_le_bytes(b)))),
        DType::U16 => each::<2>(data, big, |b| out.push(f64::from(u16::from_le_bytes(b)))),
        DType::I32 => each::<4>(data, big, |b| out.push(f64::from(i32::from_le_bytes(b)))),
        DType::U32 => each::<4>(data, big, |b| out.push(f64::from(u32::from_le_bytes(b)))),
        DType::F32 => each::<4>(data, big, |b| out.push(f64::from(f32::from_le_bytes(b)))),
        DType::I64 => each::<8>(data, big, |b| out.push(i64::from_le_bytes(b) as f64)),
        DType::U64 => each::<8>(data, big, |b| out.push(u64::from_le_bytes(b) as f64)),
        DType::F64 => each::<8>(data, big, |b| out.push(f64::from_le_bytes(b))),
    }
}

/// `values` in C order: unchanged unless the header says Fortran order.
fn to_c_order<T: Copy>(header: &NpyHeader, values: Vec<T>) -> Result<Vec<T>, NpyError> {
    let shape = &header.shape;
    if !header.fortran_order || shape.len() < 2 || values.is_empty() {
        return Ok(values);
    }
    let n = shape.len();
    let mut c_stride = vec![1_usize; n];
    for k in (0..n - 1).rev() {
        c_stride[k] = c_stride[k + 1] * shape[k + 1];
    }
    let mut out = allocate::<T>(values.len())?;
    out.extend_from_slice(&values);
    // Walk the Fortran-ordered values with an odometer whose first axis runs fastest, keeping
    // the matching C offset.
    let mut index = vec![0_usize; n];
    let mut c = 0_usize;
    for &value in &values {
        out[c] = value;
        for k in 0..n {
            index[k] += 1;
            c += c_stride[k];
            if index[k] < shape[k] {
                break;
            }
            c -= c_stride[k] * shape[k];
            index[k] = 0;
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// The header's Python literal.

/// The subset of Python literals NPY headers use.
#[derive(Debug)]
enum Literal {
    Str(String),
    Int(i128),
    Bool(bool),
    None,
    Tuple(Vec<Literal>),
    List(Vec<Literal>),
    Dict(Vec<(Literal, Literal)>),
}

/// A recursive-descent parser over the header text, with a nesting limit.
struct Parser<'a> {
    text: &'a [u8],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> NpyError {
        NpyError::Header(format!("{what} at byte {} of the header", self.pos))
    }

    fn skip_space(&mut self) {
        while self
            .text
            .get(self.pos)
            .is_some_and(|b| b.is_ascii_whitespace())
        {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.get(self.pos).copied()
    }

    fn value(&mut self) -> Result<Literal, NpyError> {
        let Some(first) = self.peek() else {
            return Err(self.error("the header ends where a value was expected"));
        };
        match first {
            b'{' => self.nested(b'}', true),
            b'(' => self.nested(b')', false),
            b'[' => self.nested(b']', false),
            b'\'' | b'"' => self.string(first),
            b'-' | b'+' | b'0'..=b'9' => self.int(),
            b'A'..=b'Z' | b'a'..=b'z' => {
                let start = self.pos;
                while self
                    .text
                    .get(self.pos)
                    .is_some_and(u8::is_ascii_alphanumeric)
                {
                    self.pos += 1;
                }
                match &self.text[start..self.pos] {
                    b"True" => Ok(Literal::Bool(true)),
                    b"False" => Ok(Literal::Bool(false)),
                    b"None" => Ok(Literal::None),
                    _ => {
                        self.pos = start;
                        Err(self.error("unknown name"))
                    }
                }
            }
            _ => Err(self.error("unexpected character")),
        }
    }

    /// A dict (`is_dict`), tuple or list, the opening bracket at `pos`.
    fn nested(&mut self, close: u8, is_dict: bool) -> Result<Literal, NpyError> {
        let open = self.text[self.pos];
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("the header nests too deeply"));
        }
        self.pos += 1;
        let mut items = Vec::new();
        let mut pairs = Vec::new();
        let mut trailing_comma = false;
        loop {
            if self.peek() == Some(close) {
                self.pos += 1;
                break;
            }
            if is_dict {
                let key = self.value()?;
                if self.peek() != Some(b':') {
                    return Err(self.error("expected ':'"));
                }
                self.pos += 1;
                pairs.push((key, self.value()?));
            } else {
                items.push(self.value()?);
            }
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    trailing_comma = true;
                }
                Some(c) if c == close => {
                    self.pos += 1;
                    trailing_comma = false;
                    break;
                }
                _ => return Err(self.error("expected ',' or a closing bracket")),
            }
        }
        self.depth -= 1;
        Ok(match open {
            b'{' => Literal::Dict(pairs),
            b'(' if items.len() == 1 && !trailing_comma => {
                // `(x)` is x in Python, not a tuple.
                items.pop().unwrap_or(Literal::None)
            }
            b'(' => Literal::Tuple(items),
            _ => Literal::List(items),
        })
    }

    fn string(&mut self, quote: u8) -> Result<Literal, NpyError> {
        self.pos += 1;
        let mut bytes = Vec::new();
        loop {
            match self.text.get(self.pos).copied() {
                None => return Err(self.error("unterminated string")),
                Some(b) if b == quote => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => {
                    let Some(&next) = self.text.get(self.pos + 1) else {
                        return Err(self.error("unterminated string"));
                    };
                    bytes.push(next);
                    self.pos += 2;
                }
                Some(b) => {
                    bytes.push(b);
                    self.pos += 1;
                }
            }
        }
        Ok(Literal::Str(String::from_utf8_lossy(&bytes).into_owned()))
    }

    fn int(&mut self) -> Result<Literal, NpyError> {
        let start = self.pos;
        if matches!(self.text.get(self.pos), Some(b'-' | b'+')) {
            self.pos += 1;
        }
        let digits = self.pos;
        while self.text.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        if self.pos == digits {
            return Err(self.error("expected digits"));
        }
        let text = std::str::from_utf8(&self.text[start..self.pos]).unwrap_or_default();
        let value = text
            .parse::<i128>()
            .map_err(|_| NpyError::Header(format!("the number {text} is too large")))?;
        // Python 2 wrote long integers with an `L` suffix: `(3L, 4L)`.
        if matches!(self.text.get(self.pos), Some(b'L' | b'l')) {
            self.pos += 1;
        }
        Ok(Literal::Int(value))
    }
}

/// Hand-built NPY files for tests of readers: any header (valid or not) over any data.
pub mod testing {
    use super::MAGIC;

    /// An NPY file (format `version`) with `header_dict` and `data`, padded as NumPy pads.
    ///
    /// # Panics
    /// If the header is longer than the format's length field can say (not for test sizes).
    pub fn npy_bytes(version: u8, header_dict: &str, data: &[u8]) -> Vec<u8> {
        let preamble = if version == 1 { 10 } else { 12 };
        let mut header = header_dict.to_owned();
        while !(preamble + header.len() + 1).is_multiple_of(64) {
            header.push(' ');
        }
        header.push('\n');
        let mut bytes = MAGIC.to_vec();
        bytes.extend([version, 0]);
        if version == 1 {
            bytes.extend(
                u16::try_from(header.len())
                    .expect("a short header")
                    .to_le_bytes(),
            );
        } else {
            bytes.extend(
                u32::try_from(header.len())
                    .expect("a short header")
                    .to_le_bytes(),
            );
        }
        bytes.extend(header.as_bytes());
        bytes.extend(data);
        bytes
    }

    /// A C-ordered NPY file of `descr` with `shape` (Python syntax) and raw `data`.
    pub fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        npy_bytes(
            1,
            &format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"),
            data,
        )
    }

    /// A 193-byte file whose header claims a 100000000 × 100000000 float64 array (80 PB).
    pub fn huge_claim() -> Vec<u8> {
        npy("<f8", "(100000000, 100000000)", &[0; 65])
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{npy, npy_bytes};
    use super::*;

    fn error(result: Result<(Vec<usize>, Vec<f64>), NpyError>) -> String {
        result.unwrap_err().to_string()
    }

    /// Encodes `values` with `to_le` and, for big endian, reverses every element's bytes.
    fn encode<const N: usize, T: Copy>(
        values: &[T],
        big: bool,
        to_le: fn(T) -> [u8; N],
    ) -> Vec<u8> {
        values
            .iter()
            .flat_map(|&v| {
                let mut b = to_le(v);
                if big {
                    b.reverse();
                }
                b
            })
            .collect()
    }

    #[test]
    fn npy_every_dtype_round_trips_in_both_byte_orders() {
        let expected = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        for big in [false, true] {
            let order = if big { '>' } else { '<' };
            let cases: Vec<(&str, Vec<u8>)> = vec![
                (
                    "f8",
                    encode(&[0.0_f64, 1.0, 2.0, 3.0, 4.0, 5.0], big, f64::to_le_bytes),
                ),
                (
                    "f4",
                    encode(&[0.0_f32, 1.0, 2.0, 3.0, 4.0, 5.0], big, f32::to_le_bytes),
                ),
                ("i8", encode(&[0_i64, 1, 2, 3, 4, 5], big, i64::to_le_bytes)),
                ("i4", encode(&[0_i32, 1, 2, 3, 4, 5], big, i32::to_le_bytes)),
                ("i2", encode(&[0_i16, 1, 2, 3, 4, 5], big, i16::to_le_bytes)),
                ("i1", encode(&[0_i8, 1, 2, 3, 4, 5], big, i8::to_le_bytes)),
                ("u8", encode(&[0_u64, 1, 2, 3, 4, 5], big, u64::to_le_bytes)),
                ("u4", encode(&[0_u32, 1, 2, 3, 4, 5], big, u32::to_le_bytes)),
                ("u2", encode(&[0_u16, 1, 2, 3, 4, 5], big, u16::to_le_bytes)),
                ("u1", vec![0, 1, 2, 3, 4, 5]),
            ];
            for (code, data) in cases {
                let descr = format!("{order}{code}");
                let bytes = npy(&descr, "(2, 3)", &data);
                let (shape, values) =
                    read_npy_f64(&bytes).unwrap_or_else(|e| panic!("{descr}: {e}"));
                assert_eq!(shape, vec![2, 3], "{descr}");
                assert_eq!(values, expected, "{descr}");
            }
        }
        // Negative and extreme values keep their sign and size.
        let bytes = npy(
            ">i2",
            "(3,)",
            &encode(&[-2_i16, i16::MIN, i16::MAX], true, i16::to_le_bytes),
        );
        assert_eq!(
            read_npy_f64(&bytes).unwrap().1,
            vec![-2.0, -32768.0, 32767.0]
        );
        let bytes = npy(
            "<f8",
            "(2,)",
            &encode(&[-1.5_f64, f64::INFINITY], false, f64::to_le_bytes),
        );
        assert_eq!(read_npy_f64(&bytes).unwrap().1, vec![-1.5, f64::INFINITY]);
        let bytes = npy("|u1", "(1,)", &[255]);
        assert_eq!(read_npy_f64(&bytes).unwrap().1, vec![255.0]);
        // Bools, in both spellings.
        for descr in ["|b1", "?"] {
            let bytes = npy(descr, "(3,)", &[1, 0, 1]);
            assert_eq!(
                read_npy_f64(&bytes).unwrap().1,
                vec![1.0, 0.0, 1.0],
                "{descr}"
            );
        }
    }

    #[test]
    fn npy_i8_reads_spins_and_refuses_other_dtypes() {
        let bytes = npy(
            "|i1",
            "(2, 2)",
            &encode(&[1_i8, -1, -1, 1], false, i8::to_le_bytes),
        );
        assert_eq!(
            read_npy_i8(&bytes).unwrap(),
            (vec![2, 2], vec![1, -1, -1, 1])
        );
        let bytes = npy("<f8", "(1,)", &1.0_f64.to_le_bytes());
        let m = read_npy_i8(&bytes).unwrap_err().to_string();
        assert!(m.contains("float64") && m.contains("int8"), "{m}");
    }

    #[test]
    fn npy_versions_2_and_3_and_0_d_and_empty_arrays_read() {
        let data = encode(&[1.0_f64, 2.0], false, f64::to_le_bytes);
        let header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";
        for version in [2, 3] {
            let bytes = npy_bytes(version, header, &data);
            assert_eq!(read_npy_f64(&bytes).unwrap(), (vec![2], vec![1.0, 2.0]));
        }
        // Version 3.0 headers may be UTF-8 (extra keys are ignored).
        let header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'note': 'µ'}";
        assert_eq!(
            read_npy_f64(&npy_bytes(3, header, &data)).unwrap().1,
            vec![1.0, 2.0]
        );
        // 0-d, empty, and Python 2 long integers.
        assert_eq!(
            read_npy_f64(&npy("<f8", "()", &data[..8])).unwrap(),
            (vec![], vec![1.0])
        );
        assert_eq!(
            read_npy_f64(&npy("<f8", "(0, 5)", &[])).unwrap(),
            (vec![0, 5], vec![])
        );
        assert_eq!(
            read_npy_f64(&npy("<f8", "(2L,)", &data)).unwrap().0,
            vec![2]
        );
    }

    #[test]
    fn npy_fortran_order_is_transposed_to_c_order() {
        // The C array [[0, 1, 2], [3, 4, 5]] stored column by column.
        let data = encode(&[0.0_f64, 3.0, 1.0, 4.0, 2.0, 5.0], false, f64::to_le_bytes);
        let header = "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }";
        let (shape, values) = read_npy_f64(&npy_bytes(1, header, &data)).unwrap();
        assert_eq!(shape, vec![2, 3]);
        assert_eq!(values, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);

        // Three axes: element (i, j, k) = 100 i + 10 j + k, stored with i fastest.
        let (a, b, c) = (2, 3, 4);
        let mut fortran = Vec::new();
        for k in 0..c {
            for j in 0..b {
                for i in 0..a {
                    fortran.push(i8::try_from(100 * i + 10 * j + k).unwrap_or(0));
                }
            }
        }
        let data = encode(&fortran, false, i8::to_le_bytes);
        let header = "{'descr': '|i1', 'fortran_order': True, 'shape': (2, 3, 4), }";
        let bytes = npy_bytes(1, header, &data);
        let (shape, values) = read_npy_i8(&bytes).unwrap();
        assert_eq!(shape, vec![2, 3, 4]);
        let mut expected = Vec::new();
        for i in 0..a {
            for j in 0..b {
                for k in 0..c {
                    expected.push(i8::try_from(100 * i + 10 * j + k).unwrap_or(0));
                }
            }
        }
        assert_eq!(values, expected);
        let as_f64 = read_npy_f64(&bytes).unwrap().1;
        assert_eq!(
            as_f64,
            expected.iter().map(|&v| f64::from(v)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn npy_huge_claimed_shape_is_refused_before_allocating() {
        let bytes = testing::huge_claim();
        assert_eq!(bytes.len(), 193);
        assert!(bytes.len() <= 193, "{}", bytes.len());
        let m = error(read_npy_f64(&bytes));
        assert!(
            m.contains("(100000000, 100000000)")
                && m.contains("80000000000000000 bytes")
                && m.contains("65 bytes are present"),
            "{m}"
        );
        // A product that overflows is refused the same way, not wrapped.
        let bytes = npy(
            "<f8",
            "(18446744073709551615, 18446744073709551615, 3)",
            &[0; 8],
        );
        let m = error(read_npy_f64(&bytes));
        assert!(
            m.contains("more than 2^128") || m.contains("bytes of data"),
            "{m}"
        );
        let m = read_npy_i8(&npy("|i1", "(4294967296, 4294967296)", &[0; 3]))
            .unwrap_err()
            .to_string();
        assert!(m.contains("3 bytes are present"), "{m}");
    }

    #[test]
    fn npy_truncated_or_padded_data_is_refused() {
        let data = encode(&[1.0_f64, 2.0, 3.0], false, f64::to_le_bytes);
        let m = error(read_npy_f64(&npy("<f8", "(3,)", &data[..20])));
        assert!(
            m.contains("needs 24 bytes") && m.contains("20 bytes are present"),
            "{m}"
        );
        let mut long = data.clone();
        long.push(0);
        let m = error(read_npy_f64(&npy("<f8", "(3,)", &long)));
        assert!(m.contains("25 bytes are present"), "{m}");
    }

    #[test]
    fn npy_header_length_beyond_the_file_is_refused() {
        let mut bytes = npy("<f8", "(1,)", &[0; 8]);
        bytes[8..10].copy_from_slice(&60000_u16.to_le_bytes());
        let m = error(read_npy_f64(&bytes));
        assert!(m.contains("claims 60000 bytes"), "{m}");
        let mut bytes = npy_bytes(
            2,
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)}",
            &[0; 8],
        );
        bytes[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        let m = error(read_npy_f64(&bytes));
        assert!(m.contains(&format!("claims {} bytes", u32::MAX)), "{m}");
    }

    #[test]
    fn npy_object_and_other_dtypes_are_refused_by_name() {
        let m = error(read_npy_f64(&npy("|O", "(1,)", &[0; 8])));
        assert!(m.contains("object arrays (pickles) are not read"), "{m}");
        for descr in ["<c16", "<f2", "|S3", "<U5", "<M8[ns]", "|V8"] {
            let m = error(read_npy_f64(&npy(descr, "(1,)", &[0; 8])));
            assert!(m.contains(&format!("dtype '{descr}' is not read")), "{m}");
        }
        let header =
            "{'descr': [('a', '<f8'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,)}";
        let m = error(read_npy_f64(&npy_bytes(1, header, &[0; 12])));
        assert!(m.contains("structured dtype"), "{m}");
    }

    #[test]
    fn npy_bad_headers_are_refused_without_panicking() {
        let bad = [
            "",
            "{",
            "{}",
            "[1, 2]",
            "{'descr': '<f8', 'fortran_order': False}",
            "{'descr': '<f8', 'fortran_order': 0, 'shape': (1,)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1.5,)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': 7}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': ('a',)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999999999999999999999,)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'shape': (1,)}",
            "{'descr': 8, 'fortran_order': False, 'shape': (1,)}",
            "{'descr': '<f8 , 'fortran_order': False, 'shape': (1,)}",
            "{'descr': '<f8', 'fortran_order': Nope, 'shape': (1,)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} trailing",
            "{1: 2}",
            "((((((((((((((((((((((((((((((((((((((((((((((((((",
        ];
        for header in bad {
            let bytes = npy_bytes(1, header, &[0; 8]);
            let m = error(read_npy_f64(&bytes));
            assert!(m.contains("header") || m.contains("dtype"), "{header}: {m}");
        }
        // Non-ASCII in a version 1.0 header, invalid UTF-8 in a version 3.0 one.
        let mut bytes = npy("<f8", "(1,)", &[0; 8]);
        bytes[12] = 0xE9;
        assert!(error(read_npy_f64(&bytes)).contains("not ASCII"));
        let mut bytes = npy_bytes(
            3,
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)}",
            &[0; 8],
        );
        bytes[14] = 0xFF;
        assert!(error(read_npy_f64(&bytes)).contains("not UTF-8"));
        // Wrong magic, version and lengths.
        assert!(error(read_npy_f64(b"")).contains("not a NumPy .npy file"));
        assert!(error(read_npy_f64(b"\x93NUMPY\x01")).contains("too short"));
        assert!(error(read_npy_f64(b"PK\x03\x04 some zip bytes")).contains(".npz"));
        assert!(error(read_npy_f64(b"hello world, not numpy")).contains("magic"));
        let mut bytes = npy("<f8", "(1,)", &[0; 8]);
        bytes[6] = 4;
        assert!(error(read_npy_f64(&bytes)).contains("version 4.0"));
        let bytes = npy("<f8", "(1,)", &[0; 8]);
        assert!(error(read_npy_f64(&bytes[..11])).contains("header claims"));
    }

    #[test]
    fn npy_garbage_bytes_never_panic() {
        // Deterministic pseudo-random garbage, and every prefix and single-byte corruption of a
        // valid file.
        let valid = npy(
            "<f8",
            "(2, 2)",
            &encode(&[1.0_f64, 2.0, 3.0, 4.0], false, f64::to_le_bytes),
        );
        let mut state = 0x1234_5678_9abc_def0_u64;
        for len in 0..300 {
            let garbage: Vec<u8> = (0..len)
                .map(|_| {
                    state = crate::rng::splitmix64(state);
                    state.to_le_bytes()[0]
                })
                .collect();
            let _ = read_npy_f64(&garbage);
            let _ = read_npy_i8(&garbage);
        }
        for cut in 0..valid.len() {
            let _ = read_npy_f64(&valid[..cut]);
        }
        for i in 0..valid.len() {
            for flip in [0x01, 0x20, 0x80, 0xFF] {
                let mut bytes = valid.clone();
                bytes[i] ^= flip;
                let _ = read_npy_f64(&bytes);
                let _ = read_npy_i8(&bytes);
            }
        }
    }

    #[test]
    fn npy_files_are_read_with_a_size_check() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.npy");
        std::fs::write(
            &path,
            npy(
                "<f4",
                "(2,)",
                &encode(&[1.5_f32, -2.0], false, f32::to_le_bytes),
            ),
        )
        .unwrap();
        assert_eq!(
            read_npy_f64_file(&path).unwrap(),
            (vec![2], vec![1.5, -2.0])
        );
        let m = read_npy_f64_file(&dir.path().join("missing.npy"))
            .unwrap_err()
            .to_string();
        assert!(m.starts_with("cannot read"), "{m}");
        let path = dir.path().join("s.npy");
        std::fs::write(&path, npy("|i1", "(2,)", &[1, 0xFF])).unwrap();
        assert_eq!(read_npy_i8_file(&path).unwrap(), (vec![2], vec![1, -1]));
        // A (sparse) file over the limit is refused from its length, before reading.
        let path = dir.path().join("big.npy");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(MAX_FILE_BYTES + 1).unwrap();
        let m = read_npy_f64_file(&path).unwrap_err().to_string();
        assert!(m.contains(&format!("{} bytes", MAX_FILE_BYTES + 1)), "{m}");
    }
}
