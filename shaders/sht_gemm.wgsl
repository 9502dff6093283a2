// Batched f32 matrix product for the GPU spherical harmonic transform (benchtop-spectra gpu.rs).
//
// C[b] = A[b] · B[b] for b = workgroup_id.z, with rows(b) = m_base − b·m_dec and
// inner(b) = k_base − b·k_dec (the Legendre stage has one product per m of size lmax + 1 − m).
// Every operand is addressed as
//   off + b·b_stride + tri(b)·tri_mul + (b mod 2)·p_stride + row·rs + (col / cdiv)·cs_hi + (col mod cdiv)·cs_lo
// with tri(b) = b·(2·lmax + 3 − b)/2 (the start of column m = b in an m-major triangle), which
// covers transposed tables, interleaved real/imaginary parts and the parity-dependent
// resampling matrices without copies. Rows of C are optionally scaled by row_scale[row mod period].
//
// Tiles: 64×64 outputs per workgroup of 16×16 threads (4×4 per thread), 16-deep K steps.

struct Operand {
    off: u32,
    b_stride: u32,
    tri_mul: u32,
    p_stride: u32,
    rs: u32,
    cs_hi: u32,
    cs_lo: u32,
    cdiv: u32,
}

struct Params {
    a: Operand,
    b: Operand,
    c: Operand,
    m_base: u32,
    m_dec: u32,
    k_base: u32,
    k_dec: u32,
    n: u32,
    lmax: u32,
    scale_period: u32,
    use_scale: u32,
}

@group(0) @binding(0) var<storage, read> mat_a: array<f32>;
@group(0) @binding(1) var<storage, read> mat_b: array<f32>;
@group(0) @binding(2) var<storage, read_write> mat_c: array<f32>;
@group(0) @binding(3) var<storage, read> row_scale: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

const TS: u32 = 64u;
const KT: u32 = 16u;

var<workgroup> tile_a: array<f32, 1024>;
var<workgroup> tile_b: array<f32, 1024>;

fn tri(b: u32) -> u32 {
    return b * (2u * p.lmax + 3u - b) / 2u;
}

fn base(o: Operand, b: u32) -> u32 {
    return o.off + b * o.b_stride + tri(b) * o.tri_mul + (b % 2u) * o.p_stride;
}

fn addr(o: Operand, ob: u32, row: u32, col: u32) -> u32 {
    return ob + row * o.rs + (col / o.cdiv) * o.cs_hi + (col % o.cdiv) * o.cs_lo;
}

@compute @workgroup_size(16, 16)
fn gemm(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let b = wg.z;
    let rows = p.m_base - b * p.m_dec;
    let inner = p.k_base - b * p.k_dec;
    let row0 = wg.y * TS;
    let col0 = wg.x * TS;
    if (row0 >= rows) {
        return;
    }
    let ab = base(p.a, b);
    let bb = base(p.b, b);
    let cb = base(p.c, b);
    let tid = lid.y * 16u + lid.x;
    var acc: array<f32, 16>;
    for (var k0 = 0u; k0 < inner; k0 += KT) {
        for (var e = 0u; e < 4u; e++) {
            let idx = tid + e * 256u;
            let r = idx / KT;
            let kk = idx % KT;
            let gr = row0 + r;
            let gk = k0 + kk;
            var v = 0.0;
            if (gr < rows && gk < inner) {
                v = mat_a[addr(p.a, ab, gr, gk)];
            }
            tile_a[r * KT + kk] = v;
        }
        for (var e = 0u; e < 4u; e++) {
            let idx = tid + e * 256u;
            let kk = idx / TS;
            let c = idx % TS;
            let gk = k0 + kk;
            let gc = col0 + c;
            var v = 0.0;
            if (gk < inner && gc < p.n) {
                v = mat_b[addr(p.b, bb, gk, gc)];
            }
            tile_b[kk * TS + c] = v;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < KT; kk++) {
            var av: array<f32, 4>;
            var bv: array<f32, 4>;
            for (var i = 0u; i < 4u; i++) {
                av[i] = tile_a[(lid.y * 4u + i) * KT + kk];
                bv[i] = tile_b[kk * TS + lid.x * 4u + i];
            }
            for (var i = 0u; i < 4u; i++) {
                for (var j = 0u; j < 4u; j++) {
                    acc[i * 4u + j] = fma(av[i], bv[j], acc[i * 4u + j]);
                }
            }
        }
        workgroupBarrier();
    }
    for (var i = 0u; i < 4u; i++) {
        let gr = row0 + lid.y * 4u + i;
        if (gr >= rows) {
            continue;
        }
        var scale = 1.0;
        if (p.use_scale == 1u) {
            scale = row_scale[gr % p.scale_period];
        }
        for (var j = 0u; j < 4u; j++) {
            let gc = col0 + lid.x * 4u + j;
            if (gc < p.n) {
                mat_c[addr(p.c, cb, gr, gc)] = acc[i * 4u + j] * scale;
            }
        }
    }
}
