//! Link variables and the duality paper's 13 translation-averaged link correlators.
//!
//! ## Links
//! A link joins nearest neighbours of the L×L torus; its variable is o_ℓ = s_i s_j on spins and
//! any real number on the output of a learned map. There are 2L² links, indexed
//! `orientation·L² + y·L + x`:
//! - horizontal link (x, y) joins site (x, y) to (x+1, y) (indices 0..L²);
//! - vertical link (x, y) joins site (x, y) to (x, y+1) (indices L²..2L²).
//!
//! ## The 13 correlators
//! For a mask m (a set of links near the origin) F_m(o) = L⁻² Σ_x Π_{ℓ∈m+x} o_ℓ, the product of
//! the mask's links averaged over all L² translations. Every mask lives on the plaquette whose
//! lower-left corner is the anchor site (x, y), with edges
//! - B (bottom) = horizontal (x, y), T (top) = horizontal (x, y+1),
//! - W (left) = vertical (x, y), E (right) = vertical (x+1, y).
//!
//! | # | name | links | on spins |
//! |---|---|---|---|
//! | 0 | `horizontal link` | B | nearest-neighbour correlation along x |
//! | 1 | `vertical link` | W | nearest-neighbour correlation along y |
//! | 2 | `L lower-left` | B W (corner (x, y)) | diagonal correlation s(x+1,y)·s(x,y+1) |
//! | 3 | `L lower-right` | B E (corner (x+1, y)) | diagonal correlation |
//! | 4 | `L upper-right` | T E (corner (x+1, y+1)) | diagonal correlation |
//! | 5 | `L upper-left` | T W (corner (x, y+1)) | diagonal correlation |
//! | 6 | `horizontal pair` | B T | the plaquette s₁s₂s₃s₄ |
//! | 7 | `vertical pair` | W E | the plaquette s₁s₂s₃s₄ |
//! | 8 | `U open top` | B W E | equals the missing link T |
//! | 9 | `U open bottom` | T W E | equals the missing link B |
//! | 10 | `U open right` | B T W | equals the missing link E |
//! | 11 | `U open left` | B T E | equals the missing link W |
//! | 12 | `plaquette` | B T W E | identically 1 |
//!
//! On spin configurations the masks are redundant (the last column), but on mapped link
//! values they are not: these identities are exactly what a map from dual samples must
//! reproduce, which is why the duality loss uses all 13.

use benchtop_compute::ComputeError;
use candle_core::{DType, Device, Tensor};

use crate::lattice::{SpinConfig, validate_size};

/// Number of link correlators.
pub const CORRELATOR_COUNT: usize = 13;

/// Most links in one mask.
pub const MAX_MASK_LINKS: usize = 4;

/// Names of the 13 correlators, in the order [`correlators`] returns them.
pub const CORRELATOR_NAMES: [&str; CORRELATOR_COUNT] = [
    "horizontal link",
    "vertical link",
    "L lower-left",
    "L lower-right",
    "L upper-right",
    "L upper-left",
    "horizontal pair",
    "vertical pair",
    "U open top",
    "U open bottom",
    "U open right",
    "U open left",
    "plaquette",
];

/// Orientation of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Orientation {
    /// From (x, y) to (x+1, y).
    Horizontal,
    /// From (x, y) to (x, y+1).
    Vertical,
}

/// A link given relative to an anchor site: orientation and the offset of its tail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkOffset {
    /// Horizontal or vertical.
    pub orientation: Orientation,
    /// x offset of the link's tail (its lower-left endpoint) from the anchor.
    pub dx: isize,
    /// y offset of the link's tail from the anchor.
    pub dy: isize,
}

const fn offset(orientation: Orientation, dx: isize, dy: isize) -> LinkOffset {
    LinkOffset {
        orientation,
        dx,
        dy,
    }
}

/// Bottom edge of the anchor plaquette.
const B: LinkOffset = offset(Orientation::Horizontal, 0, 0);
/// Top edge.
const T: LinkOffset = offset(Orientation::Horizontal, 0, 1);
/// Left edge.
const W: LinkOffset = offset(Orientation::Vertical, 0, 0);
/// Right edge.
const E: LinkOffset = offset(Orientation::Vertical, 1, 0);

/// The four edges of the anchor plaquette in the order B, T, W, E (see the module docs).
pub const PLAQUETTE_EDGES: [LinkOffset; 4] = [B, T, W, E];

/// The links of each mask relative to its anchor site (see the module table).
pub const MASKS: [&[LinkOffset]; CORRELATOR_COUNT] = [
    &[B],
    &[W],
    &[B, W],
    &[B, E],
    &[T, E],
    &[T, W],
    &[B, T],
    &[W, E],
    &[B, W, E],
    &[T, W, E],
    &[B, T, W],
    &[B, T, E],
    &[B, T, W, E],
];

/// Number of links of the L×L torus, 2L².
pub fn link_count(size: usize) -> usize {
    2 * size * size
}

/// Index of the link with `orientation` whose tail is site (x, y) (taken modulo L).
pub fn link_index(size: usize, orientation: Orientation, x: isize, y: isize) -> usize {
    let side = size as isize;
    let (xm, ym) = (x.rem_euclid(side) as usize, y.rem_euclid(side) as usize);
    let base = match orientation {
        Orientation::Horizontal => 0,
        Orientation::Vertical => size * size,
    };
    base + ym * size + xm
}

/// Real values on the 2L² links of an L×L torus, indexed as in the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkField {
    size: usize,
    values: Vec<f64>,
}

impl LinkField {
    /// The link variables o_ℓ = s_i s_j of a spin configuration.
    pub fn from_spins(config: &SpinConfig) -> Self {
        let size = config.size();
        let mut values = vec![0.0; link_count(size)];
        spin_links(config, |index, value| values[index] = f64::from(value));
        Self { size, values }
    }

    /// Arbitrary values (for example a learned map's output); needs exactly 2L² finite values.
    pub fn from_values(size: usize, values: Vec<f64>) -> Result<Self, ComputeError> {
        validate_size(size)?;
        if values.len() != link_count(size) {
            return Err(ComputeError::invalid(
                "links",
                format!(
                    "expected 2L² = {} link values for L = {size}, got {}",
                    link_count(size),
                    values.len()
                ),
            ));
        }
        if let Some(index) = values.iter().position(|v| !v.is_finite()) {
            return Err(ComputeError::invalid(
                "links",
                format!("link value {index} is {}, not finite", values[index]),
            ));
        }
        Ok(Self { size, values })
    }

    /// The side L.
    pub fn size(&self) -> usize {
        self.size
    }

    /// All 2L² values, horizontal links first.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The value of the link with `orientation` whose tail is (x, y), modulo L.
    pub fn get(&self, orientation: Orientation, x: isize, y: isize) -> f64 {
        self.values[link_index(self.size, orientation, x, y)]
    }

    /// Mean value over all links.
    pub fn mean(&self) -> f64 {
        self.values.iter().sum::<f64>() / self.values.len() as f64
    }
}

/// Calls `visit(link index, s_i s_j)` for every link of `config`, horizontal links first.
fn spin_links(config: &SpinConfig, mut visit: impl FnMut(usize, i8)) {
    let size = config.size();
    let spins = config.spins();
    for y in 0..size {
        let row = y * size;
        let up = ((y + 1) % size) * size;
        for x in 0..size {
            let right = row + (x + 1) % size;
            visit(row + x, spins[row + x] * spins[right]);
            visit(size * size + row + x, spins[row + x] * spins[up + x]);
        }
    }
}

/// The 13 correlators of a spin configuration (order of [`CORRELATOR_NAMES`]).
pub fn correlators(config: &SpinConfig) -> [f64; CORRELATOR_COUNT] {
    let size = config.size();
    let sites = size * size;
    let mut links = vec![0_i8; link_count(size)];
    spin_links(config, |index, value| links[index] = value);
    let mut sums = [0_i64; CORRELATOR_COUNT];
    for y in 0..size {
        let row = y * size;
        let up = ((y + 1) % size) * size;
        for x in 0..size {
            let right = (x + 1) % size;
            let b = i64::from(links[row + x]);
            let t = i64::from(links[up + x]);
            let w = i64::from(links[sites + row + x]);
            let e = i64::from(links[sites + row + right]);
            accumulate(&mut sums, b, t, w, e);
        }
    }
    let scale = 1.0 / sites as f64;
    sums.map(|s| s as f64 * scale)
}

/// Adds the 13 mask products of one plaquette with edges b, t, w, e to `sums`.
fn accumulate<T>(sums: &mut [T; CORRELATOR_COUNT], b: T, t: T, w: T, e: T)
where
    T: Copy + std::ops::Mul<Output = T> + std::ops::AddAssign,
{
    let bt = b * t;
    let we = w * e;
    let products = [
        b,
        w,
        b * w,
        b * e,
        t * e,
        t * w,
        bt,
        we,
        b * we,
        t * we,
        bt * w,
        bt * e,
        bt * we,
    ];
    for (sum, product) in sums.iter_mut().zip(products) {
        *sum += product;
    }
}

/// The 13 correlators of arbitrary link values (order of [`CORRELATOR_NAMES`]).
pub fn link_correlators(field: &LinkField) -> [f64; CORRELATOR_COUNT] {
    let size = field.size();
    let side = size as isize;
    let mut sums = [0.0_f64; CORRELATOR_COUNT];
    for y in 0..side {
        for x in 0..side {
            let at = |o: LinkOffset| field.get(o.orientation, x + o.dx, y + o.dy);
            accumulate(&mut sums, at(B), at(T), at(W), at(E));
        }
    }
    let scale = 1.0 / (size * size) as f64;
    sums.map(|s| s * scale)
}

/// The 13 correlators as a candle computation on a batch of link fields, for losses that
/// need gradients with respect to the link values.
#[derive(Clone, Debug)]
pub struct CorrelatorIndex {
    size: usize,
    /// For each plaquette edge B, T, W, E: the link index of that edge at every anchor (L²).
    edges: [Tensor; 4],
}

impl CorrelatorIndex {
    /// The gather indices for side `size` on `device`.
    pub fn new(size: usize, device: &Device) -> Result<Self, ComputeError> {
        validate_size(size)?;
        let side = size as isize;
        let mut tensors = Vec::with_capacity(4);
        for edge in PLAQUETTE_EDGES {
            let mut indices = Vec::with_capacity(size * size);
            for y in 0..side {
                for x in 0..side {
                    let index = link_index(size, edge.orientation, x + edge.dx, y + edge.dy);
                    let index = u32::try_from(index).map_err(|_| {
                        ComputeError::invalid("size", format!("L = {size} has too many links"))
                    })?;
                    indices.push(index);
                }
            }
            tensors.push(Tensor::from_vec(indices, size * size, device)?);
        }
        let [b, t, w, e]: [Tensor; 4] = tensors
            .try_into()
            .map_err(|_| ComputeError::Numerical("expected four plaquette edges".to_owned()))?;
        Ok(Self {
            size,
            edges: [b, t, w, e],
        })
    }

    /// The side L this index was built for.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Per-sample correlators of `links`, a float tensor of shape (N, 2L²): returns (N, 13).
    pub fn apply(&self, links: &Tensor) -> Result<Tensor, ComputeError> {
        let (_, count) = links.dims2()?;
        if count != link_count(self.size) {
            return Err(ComputeError::invalid(
                "links",
                format!(
                    "expected 2L² = {} links per sample for L = {}, got {count}",
                    link_count(self.size),
                    self.size
                ),
            ));
        }
        // Four contiguous (N, L²) gathers, then the 13 products of the module table.
        let [b, t, w, e] = &self.edges;
        let edges = [
            links.index_select(b, 1)?,
            links.index_select(t, 1)?,
            links.index_select(w, 1)?,
            links.index_select(e, 1)?,
        ];
        correlators_from_edges(&edges)
    }
}

/// Per-sample correlators from the values of the four plaquette edges B, T, W, E at every
/// anchor, each an (N, L²) tensor (anchor-major within a sample): returns (N, 13).
pub fn correlators_from_edges(edges: &[Tensor; 4]) -> Result<Tensor, ComputeError> {
    let products = mask_products(edges)?;
    let means = products
        .iter()
        .map(|p| p.mean_keepdim(1))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Tensor::cat(&means, 1)?)
}

/// The 13 mask products Π_{ℓ∈m} o_ℓ, elementwise over tensors of edge values B, T, W, E of
/// any (common) shape, in the order of [`CORRELATOR_NAMES`].
pub fn mask_products(edges: &[Tensor; 4]) -> Result<[Tensor; CORRELATOR_COUNT], ComputeError> {
    let [b, t, w, e] = edges;
    let bt = b.mul(t)?;
    let we = w.mul(e)?;
    Ok([
        b.clone(),
        w.clone(),
        b.mul(w)?,
        b.mul(e)?,
        t.mul(e)?,
        t.mul(w)?,
        bt.clone(),
        we.clone(),
        b.mul(&we)?,
        t.mul(&we)?,
        bt.mul(w)?,
        bt.mul(e)?,
        bt.mul(&we)?,
    ])
}

/// The 13 mask products of one plaquette with edge values b, t, w, e (plain f64).
pub fn mask_products_f64(b: f64, t: f64, w: f64, e: f64) -> [f64; CORRELATOR_COUNT] {
    let mut products = [0.0; CORRELATOR_COUNT];
    accumulate(&mut products, b, t, w, e);
    products
}

/// Link variables of a batch of spin configurations as an (N, 2L²) tensor of `dtype`.
pub fn links_tensor(
    configs: &[SpinConfig],
    dtype: DType,
    device: &Device,
) -> Result<Tensor, ComputeError> {
    let Some(first) = configs.first() else {
        return Err(ComputeError::invalid(
            "samples",
            "at least one configuration is needed",
        ));
    };
    let size = first.size();
    let count = link_count(size);
    let mut values = Vec::with_capacity(configs.len() * count);
    for config in configs {
        if config.size() != size {
            return Err(ComputeError::invalid(
                "samples",
                format!(
                    "all configurations must share one size (L = {size} and L = {})",
                    config.size()
                ),
            ));
        }
        let start = values.len();
        values.resize(start + count, 0.0_f64);
        let slice = &mut values[start..];
        spin_links(config, |index, value| slice[index] = f64::from(value));
    }
    Ok(Tensor::from_vec(values, (configs.len(), count), device)?.to_dtype(dtype)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lattice::Start;
    use crate::single_spin::sample_configs;
    use benchtop_compute::CancelToken;
    use rand::Rng as _;

    fn bond_and_plaquette(config: &SpinConfig) -> (f64, f64) {
        let size = config.size() as isize;
        let (mut bonds, mut plaquettes) = (0.0, 0.0);
        for y in 0..size {
            for x in 0..size {
                let s = f64::from(config.get(x, y));
                let east = f64::from(config.get(x + 1, y));
                let north = f64::from(config.get(x, y + 1));
                let north_east = f64::from(config.get(x + 1, y + 1));
                bonds += s * east + s * north;
                plaquettes += s * east * north * north_east;
            }
        }
        let sites = (size * size) as f64;
        (bonds / (2.0 * sites), plaquettes / sites)
    }

    fn sample() -> Vec<SpinConfig> {
        let couplings = crate::couplings::Couplings {
            beta: 0.42,
            plaquette: 0.1,
        };
        sample_configs(8, couplings, 6, 20, 2, 5, 2, &CancelToken::new()).unwrap()
    }

    #[test]
    fn cold_lattice_gives_all_ones() {
        let cold = SpinConfig::new(6, Start::Cold, 0).unwrap();
        assert_eq!(correlators(&cold), [1.0; CORRELATOR_COUNT]);
        assert_eq!(
            link_correlators(&LinkField::from_spins(&cold)),
            [1.0; CORRELATOR_COUNT]
        );
    }

    #[test]
    fn spin_identities_hold() {
        let mut configs = sample();
        configs.push(SpinConfig::new(8, Start::Hot, 3).unwrap());
        for config in &configs {
            let f = correlators(config);
            let (bond, plaquette) = bond_and_plaquette(config);
            // Single links average to the bond energy per link.
            assert!(((f[0] + f[1]) / 2.0 - bond).abs() < 1e-12);
            // Opposite edges multiply to the plaquette s₁s₂s₃s₄.
            assert!((f[6] - plaquette).abs() < 1e-12);
            assert!((f[7] - plaquette).abs() < 1e-12);
            // The full 4-edge mask is identically 1 on spins; U-shapes equal single links.
            assert_eq!(f[12], 1.0);
            assert!((f[8] - f[0]).abs() < 1e-12 && (f[9] - f[0]).abs() < 1e-12);
            assert!((f[10] - f[1]).abs() < 1e-12 && (f[11] - f[1]).abs() < 1e-12);
            // The fast spin path agrees with the general one.
            let general = link_correlators(&LinkField::from_spins(config));
            for (a, b) in f.iter().zip(general) {
                assert!((a - b).abs() < 1e-12);
            }
        }
        // A checkerboard antiferromagnet: every link −1, every diagonal +1.
        let spins = (0..64)
            .map(|i| if (i % 8 + i / 8) % 2 == 0 { 1 } else { -1 })
            .collect();
        let neel = SpinConfig::from_spins(8, spins).unwrap();
        let f = correlators(&neel);
        assert_eq!(&f[..2], &[-1.0, -1.0]);
        assert_eq!(&f[2..8], &[1.0; 6]);
        assert_eq!(&f[8..12], &[-1.0; 4]);
    }

    #[test]
    fn link_indexing_and_field_values() {
        assert_eq!(link_count(8), 128);
        assert_eq!(link_index(8, Orientation::Horizontal, 9, -1), 7 * 8 + 1);
        assert_eq!(link_index(8, Orientation::Vertical, 0, 0), 64);
        let config = &sample()[0];
        let field = LinkField::from_spins(config);
        let product = config.get(3, 7) * config.get(3, 8);
        assert_eq!(field.get(Orientation::Vertical, 3, 7), f64::from(product));
        assert!(LinkField::from_values(8, vec![0.0; 127]).is_err());
        let mut values = vec![0.5; 128];
        values[5] = f64::NAN;
        assert!(
            LinkField::from_values(8, values)
                .unwrap_err()
                .to_string()
                .contains("links")
        );
    }

    #[test]
    fn candle_correlators_equal_f64_correlators() {
        let device = Device::Cpu;
        let configs = sample();
        let index = CorrelatorIndex::new(8, &device).unwrap();
        let tensor = index
            .apply(&links_tensor(&configs, DType::F64, &device).unwrap())
            .unwrap();
        let rows: Vec<Vec<f64>> = tensor.to_vec2().unwrap();
        for (config, row) in configs.iter().zip(&rows) {
            for (a, b) in correlators(config).iter().zip(row) {
                assert!((a - b).abs() < 1e-12, "{a} vs {b}");
            }
        }
        // Arbitrary real link values: the candle path and the f64 path agree too.
        let mut rng = benchtop_compute::rng::seeded(4);
        let fields: Vec<LinkField> = (0..3)
            .map(|_| {
                let values = (0..128).map(|_| rng.random_range(-2.0..2.0)).collect();
                LinkField::from_values(8, values).unwrap()
            })
            .collect();
        let flat: Vec<f64> = fields.iter().flat_map(|f| f.values().to_vec()).collect();
        let batch = Tensor::from_vec(flat, (3, 128), &device).unwrap();
        let rows: Vec<Vec<f64>> = index.apply(&batch).unwrap().to_vec2().unwrap();
        for (field, row) in fields.iter().zip(&rows) {
            for (a, b) in link_correlators(field).iter().zip(row) {
                assert!((a - b).abs() < 1e-12, "{a} vs {b}");
            }
        }
        assert!(index.apply(&batch.narrow(1, 0, 100).unwrap()).is_err());
    }
}
