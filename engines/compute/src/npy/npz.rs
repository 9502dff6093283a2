//! NPZ archives: a zip reader over a byte slice for stored and deflate members (zip64 records
//! understood), with every offset, size and count checked against the bytes present.

use std::borrow::Cow;
use std::io::Read as _;

use flate2::bufread::DeflateDecoder;

use super::{NpyError, allocate, read_header, read_npy_f64};

const EOCD_SIG: u32 = 0x0605_4b50;
const ZIP64_LOCATOR_SIG: u32 = 0x0706_4b50;
const ZIP64_EOCD_SIG: u32 = 0x0606_4b50;
const CENTRAL_SIG: u32 = 0x0201_4b50;
const LOCAL_SIG: u32 = 0x0403_4b50;
/// Fixed sizes of the end-of-central-directory record and a central directory entry.
const EOCD_LEN: usize = 22;
const CENTRAL_LEN: usize = 46;
const LOCAL_LEN: usize = 30;
/// Deflate expands at most 1032:1 (zlib's documented limit); a member declaring more than this
/// (plus slack for tiny members) from its compressed bytes is lying.
const DEFLATE_MAX_RATIO: u64 = 1032;
const DEFLATE_SLACK: u64 = 1024;

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    let b = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    let b = bytes.get(at..at.checked_add(8)?)?;
    let mut a = [0_u8; 8];
    a.copy_from_slice(b);
    Some(u64::from_le_bytes(a))
}

fn damaged(why: impl Into<String>) -> NpyError {
    NpyError::Zip(why.into())
}

fn to_usize(value: u64, what: &str) -> Result<usize, NpyError> {
    usize::try_from(value).map_err(|_| damaged(format!("{what} {value} is out of range")))
}

/// One member of the archive, from the central directory.
#[derive(Clone, Debug)]
struct Member {
    name: String,
    flags: u16,
    method: u16,
    crc32: u32,
    compressed: u64,
    uncompressed: u64,
    local_offset: u64,
}

/// An NPZ archive held in memory: its arrays are listed with [`Npz::names`] and read with
/// [`Npz::read_f64`].
#[derive(Clone, Debug)]
pub struct Npz<'a> {
    bytes: &'a [u8],
    members: Vec<Member>,
}

impl<'a> Npz<'a> {
    /// Parses the archive's central directory (nothing is inflated yet).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, NpyError> {
        let eocd = find_eocd(bytes)?;
        let field16 = |at| u64::from(u16_at(bytes, eocd + at).unwrap_or(0));
        let field32 = |at| u64::from(u32_at(bytes, eocd + at).unwrap_or(0));
        let (mut disk, mut cd_disk) = (field16(4), field16(6));
        let mut entries = field16(10);
        let mut cd_size = field32(12);
        let mut cd_offset = field32(16);
        let locator = eocd.checked_sub(20);
        let zip64 = locator.filter(|&at| u32_at(bytes, at) == Some(ZIP64_LOCATOR_SIG));
        if let Some(locator) = zip64 {
            let at = u64_at(bytes, locator + 8).unwrap_or(u64::MAX);
            let at = to_usize(at, "zip64 end record offset")?;
            if u32_at(bytes, at) != Some(ZIP64_EOCD_SIG) {
                return Err(damaged("the zip64 end record is missing"));
            }
            let field = |offset| {
                u64_at(bytes, at + offset)
                    .ok_or_else(|| damaged("the zip64 end record is cut short"))
            };
            disk = u64::from(u32_at(bytes, at + 16).unwrap_or(0));
            cd_disk = u64::from(u32_at(bytes, at + 20).unwrap_or(0));
            entries = field(32)?;
            cd_size = field(40)?;
            cd_offset = field(48)?;
        }
        if disk != 0 || cd_disk != 0 {
            return Err(damaged("the archive is split across several disks"));
        }
        let start = to_usize(cd_offset, "central directory offset")?;
        let size = to_usize(cd_size, "central directory size")?;
        let directory = start
            .checked_add(size)
            .and_then(|end| bytes.get(start..end))
            .ok_or_else(|| {
                damaged(format!(
                    "the central directory ({cd_size} bytes at offset {cd_offset}) lies outside \
                     the {} bytes of the archive",
                    bytes.len()
                ))
            })?;
        if entries > (size / CENTRAL_LEN) as u64 {
            return Err(damaged(format!(
                "the central directory claims {entries} entries in {cd_size} bytes"
            )));
        }
        let mut members = Vec::new();
        let mut at = 0;
        for _ in 0..entries {
            let (member, next) = central_entry(directory, at)?;
            members.push(member);
            at = next;
        }
        Ok(Self { bytes, members })
    }

    /// The arrays' names in archive order, without the `.npy` suffix.
    pub fn names(&self) -> Vec<String> {
        self.members
            .iter()
            .filter(|m| !m.name.ends_with('/'))
            .map(|m| m.name.strip_suffix(".npy").unwrap_or(&m.name).to_owned())
            .collect()
    }

    /// Reads array `name` (with or without `.npy`) as f64 values in C order, with its shape.
    pub fn read_f64(&self, name: &str) -> Result<(Vec<usize>, Vec<f64>), NpyError> {
        read_npy_f64(&self.npy_bytes(name)?)
    }

    /// The NPY bytes of array `name` (with or without `.npy`): borrowed when stored, inflated
    /// when deflated; the CRC-32 is checked either way.
    pub fn npy_bytes(&self, name: &str) -> Result<Cow<'a, [u8]>, NpyError> {
        let member = self.member(name)?;
        if member.flags & 1 != 0 {
            return Err(NpyError::Encrypted);
        }
        let data = self.member_data(member)?;
        let npy = match member.method {
            0 => {
                if member.uncompressed != member.compressed {
                    return Err(damaged(format!(
                        "a stored member declares {} bytes but holds {}",
                        member.uncompressed, member.compressed
                    )));
                }
                Cow::Borrowed(data)
            }
            8 => Cow::Owned(inflate(member, data)?),
            method => return Err(NpyError::Compression(method)),
        };
        let mut crc = flate2::Crc::new();
        crc.update(&npy);
        if crc.sum() != member.crc32 {
            return Err(NpyError::Crc {
                stored: member.crc32,
                computed: crc.sum(),
            });
        }
        Ok(npy)
    }

    /// The member for array `name`; the last one wins if a name repeats, as in Python.
    fn member(&self, name: &str) -> Result<&Member, NpyError> {
        self.members
            .iter()
            .rev()
            .find(|m| m.name == name || m.name.strip_suffix(".npy") == Some(name))
            .ok_or_else(|| {
                let names = self.names();
                NpyError::MissingArray {
                    name: name.to_owned(),
                    found: if names.is_empty() {
                        "none".to_owned()
                    } else {
                        names.join(", ")
                    },
                }
            })
    }

    /// The member's (compressed) bytes, after its local header.
    fn member_data(&self, member: &Member) -> Result<&'a [u8], NpyError> {
        let bytes = self.bytes;
        let at = to_usize(member.local_offset, "local header offset")?;
        if u32_at(bytes, at) != Some(LOCAL_SIG) {
            return Err(damaged(format!(
                "no local header for `{}` at offset {at}",
                member.name
            )));
        }
        let name_len = u16_at(bytes, at + 26).unwrap_or(0);
        let extra_len = u16_at(bytes, at + 28).unwrap_or(0);
        let start = at + LOCAL_LEN + usize::from(name_len) + usize::from(extra_len);
        let size = to_usize(member.compressed, "compressed size")?;
        start
            .checked_add(size)
            .and_then(|end| bytes.get(start..end))
            .ok_or_else(|| {
                damaged(format!(
                    "the data of `{}` ({size} bytes at offset {start}) run past the end of the \
                     {}-byte archive",
                    member.name,
                    bytes.len()
                ))
            })
    }
}

/// The offset of the end-of-central-directory record (the last one whose comment fits).
fn find_eocd(bytes: &[u8]) -> Result<usize, NpyError> {
    if bytes.len() < EOCD_LEN {
        return Err(NpyError::NotZip("too short for a zip archive"));
    }
    let last = bytes.len() - EOCD_LEN;
    let first = last.saturating_sub(usize::from(u16::MAX));
    (first..=last)
        .rev()
        .find(|&at| {
            u32_at(bytes, at) == Some(EOCD_SIG)
                && u16_at(bytes, at + 20)
                    .is_some_and(|comment| at + EOCD_LEN + usize::from(comment) <= bytes.len())
        })
        .ok_or(NpyError::NotZip("no end-of-central-directory record"))
}

/// The central directory entry at `at` of `directory`, and the offset of the next one.
fn central_entry(directory: &[u8], at: usize) -> Result<(Member, usize), NpyError> {
    let cut = || damaged("a central directory entry is cut short");
    if u32_at(directory, at) != Some(CENTRAL_SIG) {
        return Err(damaged("a central directory entry has a wrong signature"));
    }
    let field16 = |offset| u16_at(directory, at + offset).ok_or_else(cut);
    let field32 = |offset| u32_at(directory, at + offset).ok_or_else(cut);
    let flags = field16(8)?;
    let method = field16(10)?;
    let crc32 = field32(16)?;
    let compressed32 = field32(20)?;
    let uncompressed32 = field32(24)?;
    let name_len = usize::from(field16(28)?);
    let extra_len = usize::from(field16(30)?);
    let comment_len = usize::from(field16(32)?);
    let disk = field16(34)?;
    let offset32 = field32(42)?;
    let name_start = at + CENTRAL_LEN;
    let name = directory
        .get(name_start..name_start + name_len)
        .ok_or_else(cut)?;
    let extra_start = name_start + name_len;
    let extra = directory
        .get(extra_start..extra_start + extra_len)
        .ok_or_else(cut)?;
    let next = extra_start + extra_len + comment_len;
    if next > directory.len() {
        return Err(cut());
    }

    // Sizes and offset that do not fit 32 bits are 0xFFFFFFFF here and live in the zip64
    // extra field (id 1), in this order, only those that overflowed.
    let mut uncompressed = u64::from(uncompressed32);
    let mut compressed = u64::from(compressed32);
    let mut local_offset = u64::from(offset32);
    let mut disk = u32::from(disk);
    let needs_zip64 = uncompressed32 == u32::MAX
        || compressed32 == u32::MAX
        || offset32 == u32::MAX
        || disk == u32::from(u16::MAX);
    if needs_zip64 {
        let mut field = zip64_field(extra)
            .ok_or_else(|| damaged("an entry needs a zip64 extra field but has none"))?;
        let mut take = || -> Result<u64, NpyError> {
            let value =
                u64_at(field, 0).ok_or_else(|| damaged("the zip64 extra field is cut short"))?;
            field = &field[8..];
            Ok(value)
        };
        if uncompressed32 == u32::MAX {
            uncompressed = take()?;
        }
        if compressed32 == u32::MAX {
            compressed = take()?;
        }
        if offset32 == u32::MAX {
            local_offset = take()?;
        }
        if disk == u32::from(u16::MAX) {
            disk = u32_at(field, 0).ok_or_else(|| damaged("the zip64 extra field is cut short"))?;
        }
    }
    if disk != 0 {
        return Err(damaged("the archive is split across several disks"));
    }
    Ok((
        Member {
            name: String::from_utf8_lossy(name).into_owned(),
            flags,
            method,
            crc32,
            compressed,
            uncompressed,
            local_offset,
        },
        next,
    ))
}

/// The data of the zip64 extra field (id 1) among `extra`'s fields.
fn zip64_field(mut extra: &[u8]) -> Option<&[u8]> {
    while extra.len() >= 4 {
        let id = u16_at(extra, 0)?;
        let len = usize::from(u16_at(extra, 2)?);
        let data = extra.get(4..4 + len)?;
        if id == 1 {
            return Some(data);
        }
        extra = &extra[4 + len..];
    }
    None
}

/// Inflates a deflated member, refusing before allocating when its declared size disagrees
/// with its NPY header or exceeds what deflate can produce, and never inflating past it.
fn inflate(member: &Member, data: &[u8]) -> Result<Vec<u8>, NpyError> {
    let declared = member.uncompressed;
    let compressed = data.len() as u64;
    let bomb = |why| NpyError::ZipBomb {
        declared,
        compressed,
        why,
    };
    let stream_error = |error: NpyError| match error {
        NpyError::Io(error) => NpyError::Inflate(error.to_string()),
        other => other,
    };
    if declared
        > compressed
            .saturating_mul(DEFLATE_MAX_RATIO)
            .saturating_add(DEFLATE_SLACK)
    {
        return Err(bomb("deflate cannot expand data that much"));
    }
    // Inflate only the NPY header first and check the declared size against it.
    let header = read_header(&mut DeflateDecoder::new(data), declared).map_err(stream_error)?;
    let data_bytes = declared - header.data_offset as u64;
    if let Err(NpyError::SizeMismatch {
        shape,
        dtype,
        needed,
        ..
    }) = header.check_data_bytes(data_bytes)
    {
        return Err(NpyError::DeclaredSize {
            shape,
            dtype,
            needed,
            declared: data_bytes,
        });
    }
    let len = to_usize(declared, "uncompressed size")?;
    let mut out = allocate::<u8>(len)?;
    out.resize(len, 0);
    let mut decoder = DeflateDecoder::new(data);
    decoder.read_exact(&mut out).map_err(|error| {
        if error.kind() == std::io::ErrorKind::UnexpectedEof {
            NpyError::Inflate(format!(
                "the stream ends before the declared {declared} bytes"
            ))
        } else {
            NpyError::Inflate(error.to_string())
        }
    })?;
    let mut more = [0_u8; 1];
    match decoder.read(&mut more) {
        Ok(0) => Ok(out),
        Ok(_) => Err(bomb("it inflates to more than that")),
        Err(error) => Err(NpyError::Inflate(error.to_string())),
    }
}

/// The names of the arrays in the NPZ archive `bytes`, without the `.npy` suffix.
pub fn list_npz(bytes: &[u8]) -> Result<Vec<String>, NpyError> {
    Ok(Npz::parse(bytes)?.names())
}

/// Reads array `name` of the NPZ archive `bytes` as f64 values in C order, with its shape.
pub fn read_npz_f64(bytes: &[u8], name: &str) -> Result<(Vec<usize>, Vec<f64>), NpyError> {
    Npz::parse(bytes)?.read_f64(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npy::testing::{npy, npy_bytes};
    use std::io::Write as _;

    /// One member for [`zip`]: name, NPY bytes, whether to deflate, and a declared size that
    /// replaces the true one (to make an archive lie).
    struct Entry<'a> {
        name: &'a str,
        data: Vec<u8>,
        deflate: bool,
        declared: Option<u64>,
    }

    fn entry(name: &str, data: Vec<u8>, deflate: bool) -> Entry<'_> {
        Entry {
            name,
            data,
            deflate,
            declared: None,
        }
    }

    /// A zip archive of `entries`; with `zip64` every size and offset goes through zip64
    /// records, as Python writes them for large archives.
    fn zip(entries: &[Entry<'_>], zip64: bool) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for e in entries {
            let stored = if e.deflate {
                let mut encoder =
                    flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
                encoder.write_all(&e.data).unwrap();
                encoder.finish().unwrap()
            } else {
                e.data.clone()
            };
            let mut crc = flate2::Crc::new();
            crc.update(&e.data);
            let size = e.declared.unwrap_or(e.data.len() as u64);
            let method: u16 = if e.deflate { 8 } else { 0 };
            let offset = out.len() as u64;
            let name = e.name.as_bytes();
            let fixed = |sig: u32, out: &mut Vec<u8>| {
                out.extend(sig.to_le_bytes());
            };
            // Local header.
            fixed(LOCAL_SIG, &mut out);
            out.extend(20_u16.to_le_bytes());
            out.extend(0_u16.to_le_bytes());
            out.extend(method.to_le_bytes());
            out.extend([0_u8; 4]);
            out.extend(crc.sum().to_le_bytes());
            out.extend((stored.len() as u32).to_le_bytes());
            out.extend((size as u32).to_le_bytes());
            out.extend((name.len() as u16).to_le_bytes());
            out.extend(0_u16.to_le_bytes());
            out.extend(name);
            out.extend(&stored);
            // Central entry.
            fixed(CENTRAL_SIG, &mut central);
            central.extend(45_u16.to_le_bytes());
            central.extend(45_u16.to_le_bytes());
            central.extend(0_u16.to_le_bytes());
            central.extend(method.to_le_bytes());
            central.extend([0_u8; 4]);
            central.extend(crc.sum().to_le_bytes());
            let extra: Vec<u8> = if zip64 {
                central.extend(u32::MAX.to_le_bytes());
                central.extend(u32::MAX.to_le_bytes());
                let mut extra = vec![1, 0, 24, 0];
                extra.extend(size.to_le_bytes());
                extra.extend((stored.len() as u64).to_le_bytes());
                extra.extend(offset.to_le_bytes());
                extra
            } else {
                central.extend((stored.len() as u32).to_le_bytes());
                central.extend((size as u32).to_le_bytes());
                Vec::new()
            };
            central.extend((name.len() as u16).to_le_bytes());
            central.extend((extra.len() as u16).to_le_bytes());
            // Comment length, disk, internal and external attributes.
            central.extend([0_u8; 10]);
            if zip64 {
                central.extend(u32::MAX.to_le_bytes());
            } else {
                central.extend((offset as u32).to_le_bytes());
            }
            central.extend(name);
            central.extend(extra);
        }
        let cd_offset = out.len() as u64;
        let count = entries.len() as u64;
        out.extend(&central);
        if zip64 {
            let record = out.len() as u64;
            out.extend(ZIP64_EOCD_SIG.to_le_bytes());
            out.extend(44_u64.to_le_bytes());
            out.extend([45, 0, 45, 0]);
            out.extend([0_u8; 8]);
            out.extend(count.to_le_bytes());
            out.extend(count.to_le_bytes());
            out.extend((central.len() as u64).to_le_bytes());
            out.extend(cd_offset.to_le_bytes());
            out.extend(ZIP64_LOCATOR_SIG.to_le_bytes());
            out.extend(0_u32.to_le_bytes());
            out.extend(record.to_le_bytes());
            out.extend(1_u32.to_le_bytes());
        }
        out.extend(EOCD_SIG.to_le_bytes());
        out.extend([0_u8; 4]);
        let (count16, size32, offset32) = if zip64 {
            (u16::MAX, u32::MAX, u32::MAX)
        } else {
            (count as u16, central.len() as u32, cd_offset as u32)
        };
        out.extend(count16.to_le_bytes());
        out.extend(count16.to_le_bytes());
        out.extend(size32.to_le_bytes());
        out.extend(offset32.to_le_bytes());
        out.extend(0_u16.to_le_bytes());
        out
    }

    fn f64_npy(shape: &str, values: &[f64]) -> Vec<u8> {
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        npy("<f8", shape, &data)
    }

    fn message<T: std::fmt::Debug>(result: Result<T, NpyError>) -> String {
        result.unwrap_err().to_string()
    }

    #[test]
    fn npz_stored_and_deflated_members_read() {
        let a = f64_npy("(2, 2)", &[1.0, 2.0, 3.0, 4.0]);
        let b = npy(">i4", "(3,)", &[0, 0, 0, 7, 0, 0, 0, 8, 255, 255, 255, 255]);
        let zeros = f64_npy("(1000,)", &[0.0; 1000]);
        for zip64 in [false, true] {
            let bytes = zip(
                &[
                    entry("a.npy", a.clone(), false),
                    entry("b.npy", b.clone(), true),
                    entry("zeros.npy", zeros.clone(), true),
                ],
                zip64,
            );
            assert_eq!(list_npz(&bytes).unwrap(), vec!["a", "b", "zeros"]);
            assert_eq!(
                read_npz_f64(&bytes, "a").unwrap(),
                (vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])
            );
            assert_eq!(
                read_npz_f64(&bytes, "b.npy").unwrap(),
                (vec![3], vec![7.0, 8.0, -1.0])
            );
            let archive = Npz::parse(&bytes).unwrap();
            assert_eq!(archive.read_f64("zeros").unwrap().1, vec![0.0; 1000]);
            assert!(matches!(archive.npy_bytes("a").unwrap(), Cow::Borrowed(_)));
            let m = message(archive.read_f64("c"));
            assert!(
                m.contains("no array `c`") && m.contains("a, b, zeros"),
                "{m}"
            );
        }
        let empty = zip(&[], false);
        assert!(list_npz(&empty).unwrap().is_empty());
        assert!(message(read_npz_f64(&empty, "x")).contains("(found: none)"));
    }

    #[test]
    fn npz_member_with_a_huge_claimed_shape_is_refused() {
        let huge = npy("<f8", "(100000000, 100000000)", &[0; 65]);
        for deflate in [false, true] {
            let bytes = zip(&[entry("x.npy", huge.clone(), deflate)], false);
            let m = message(read_npz_f64(&bytes, "x"));
            assert!(m.contains("(100000000, 100000000)"), "{m}");
        }
        // Declared size and header agree on 8e16 bytes but the compressed data are tiny.
        let mut lying = entry("x.npy", huge, true);
        lying.declared = Some(80_000_000_000_000_128);
        let m = message(read_npz_f64(&zip(&[lying], true), "x"));
        assert!(m.contains("zip bomb") && m.contains("cannot expand"), "{m}");
    }

    #[test]
    fn npz_zip_bomb_with_a_lying_declared_size_is_refused() {
        // 1 MB of zeros declared (and described by its header) as 80 bytes of data.
        let header = "{'descr': '<f8', 'fortran_order': False, 'shape': (10,), }";
        let real = npy_bytes(1, header, &vec![0; 1 << 20]);
        let declared = (real.len() - (1 << 20) + 80) as u64;
        let mut bomb = entry("bomb.npy", real, true);
        bomb.declared = Some(declared);
        let bytes = zip(&[bomb], false);
        let m = message(read_npz_f64(&bytes, "bomb"));
        assert!(
            m.contains("inflates to more") && m.contains("zip bomb"),
            "{m}"
        );

        // A declared size that disagrees with the header is refused before inflating the data.
        let mut wrong = entry("w.npy", f64_npy("(4,)", &[1.0; 4]), true);
        wrong.declared = Some(1000);
        let m = message(read_npz_f64(&zip(&[wrong], false), "w"));
        assert!(
            m.contains("needs 32 bytes") && m.contains("declares"),
            "{m}"
        );

        // A declared size larger than the stream: refused when the stream ends.
        let data = f64_npy("(4,)", &[1.0; 4]);
        let header = "{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }";
        let mut short = entry(
            "s.npy",
            npy_bytes(1, header, &data[data.len() - 32..]),
            true,
        );
        short.declared = Some(short.data.len() as u64 + 8);
        let m = message(read_npz_f64(&zip(&[short], false), "s"));
        assert!(m.contains("ends before"), "{m}");
    }

    #[test]
    fn npz_damaged_archives_are_refused_without_panicking() {
        let a = f64_npy("(3,)", &[1.0, 2.0, 3.0]);
        let bytes = zip(
            &[entry("a.npy", a.clone(), true), entry("b.npy", a, false)],
            false,
        );
        assert!(message(list_npz(b"not a zip")).contains("not a NumPy .npz archive"));
        assert!(message(list_npz(&bytes[..bytes.len() - 30])).contains("npz"));
        // A flipped data byte of the stored member (just before the central directory) fails
        // the CRC.
        let central = bytes.len() - 22 - 2 * (46 + "a.npy".len());
        let mut bad = bytes.clone();
        bad[central - 5] ^= 0xFF;
        let m = message(read_npz_f64(&bad, "b"));
        assert!(m.contains("CRC-32 mismatch"), "{m}");
        // An unsupported method and an encrypted member.
        let mut other = bytes.clone();
        other[central + 10] = 12;
        assert!(message(read_npz_f64(&other, "a")).contains("compression method 12"));
        let mut locked = bytes.clone();
        locked[central + 8] = 1;
        assert!(message(read_npz_f64(&locked, "a")).contains("encrypted"));
        // Every prefix and single-byte corruption: errors, never panics.
        for cut in 0..bytes.len() {
            if let Ok(archive) = Npz::parse(&bytes[..cut]) {
                for name in archive.names() {
                    let _ = archive.read_f64(&name);
                }
            }
        }
        for i in 0..bytes.len() {
            for flip in [0x01, 0x80, 0xFF] {
                let mut b = bytes.clone();
                b[i] ^= flip;
                if let Ok(archive) = Npz::parse(&b) {
                    for name in archive.names() {
                        let _ = archive.read_f64(&name);
                    }
                }
            }
        }
    }
}
