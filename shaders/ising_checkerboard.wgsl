// Canonical checkerboard Metropolis for the Ising model with plaquette coupling, multi-spin
// coded: one invocation updates one 32-site word. The layout, update rule and random numbers are
// defined in engines/ising/src/checkerboard (mod.rs, packed.rs, counter_rng.rs); the CPU and
// CUDA paths accept exactly the same flips.
//
// Bit 1 = spin -1. Words form four blocks (colour c, row parity r) in the order
// (0,0), (0,1), (1,0), (1,1); block (c, r) holds rows y = 2i + r of colour-c sites, each row as
// L/2 compact sites j = x / 2, 32 per word.

struct Model {
    size: u32,
    half: u32,            // L / 2: rows per block and compact sites per row
    words_per_row: u32,   // L / 64
    plaquette: u32,       // 1 when K != 0
    class_count: u32,     // classes that need a random number
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    // (aligned, positive plaquettes, threshold, unused) per class
    classes: array<vec4<u32>, 25>,
}

struct Phase {
    k0: u32,
    k1: u32,
    colour: u32,
    parity: u32,
    all_rows: u32,        // 1: update both row parities of this colour (allowed when K = 0)
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read_write> spins: array<u32>;
@group(0) @binding(1) var<uniform> model: Model;
@group(0) @binding(2) var<uniform> phase: Phase;

fn lowbias32(v: u32) -> u32 {
    var x = v;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}

fn random_word(row: u32, group: u32, level: u32) -> u32 {
    let counter = ((row * model.words_per_row + group) << 5u) | level;
    return lowbias32(lowbias32(counter + phase.k0) ^ phase.k1);
}

fn block_base(colour: u32, parity: u32) -> u32 {
    return (2u * colour + parity) * model.half * model.words_per_row;
}

// Word w of a row starting at `base`, shifted by one compact site towards j + 1 or j - 1.
fn shifted(base: u32, w: u32, towards_next: bool) -> u32 {
    let n = model.words_per_row;
    if (towards_next) {
        return (spins[base + w] >> 1u) | (spins[base + (w + 1u) % n] << 31u);
    }
    return (spins[base + w] << 1u) | (spins[base + (w + n - 1u) % n] >> 31u);
}

// One-hot masks of how many of four lane-wise bits are set.
fn one_hot(b0: u32, b1: u32, b2: u32, b3: u32) -> array<u32, 5> {
    let x01 = b0 ^ b1;
    let a01 = b0 & b1;
    let x23 = b2 ^ b3;
    let a23 = b2 & b3;
    let c0 = x01 ^ x23;
    let carry = x01 & x23;
    let c1 = a01 ^ a23 ^ carry;
    let c2 = (a01 & a23) | (a01 & carry) | (a23 & carry);
    let low = ~c2;
    return array<u32, 5>(~c0 & ~c1 & low, c0 & ~c1 & low, ~c0 & c1 & low, c0 & c1 & low, c2);
}

@compute @workgroup_size(64)
fn update(
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = (group_id.y * groups.x + group_id.x) * 64u + local;
    let rows = select(model.half, model.size, phase.all_rows == 1u);
    let w = index % model.words_per_row;
    let row_in_phase = index / model.words_per_row;
    if (row_in_phase >= rows) {
        return;
    }
    var parity = phase.parity;
    var i = row_in_phase;
    if (phase.all_rows == 1u) {
        parity = row_in_phase & 1u;
        i = row_in_phase >> 1u;
    }
    let colour = phase.colour;
    let other = 1u - colour;
    let half = model.half;
    let n = model.words_per_row;
    let towards_next = ((colour + parity) & 1u) == 1u;
    var up = i;
    var down = i;
    if (parity == 0u) {
        up = (i + half - 1u) % half;
    } else {
        down = (i + 1u) % half;
    }
    let y = 2u * i + parity;

    let target_index = block_base(colour, parity) + i * n + w;
    let s = spins[target_index];
    let mid_base = block_base(other, parity) + i * n;
    let mid = spins[mid_base + w];
    let side = shifted(mid_base, w, towards_next);
    var right = mid;
    var left = side;
    if (towards_next) {
        right = side;
        left = mid;
    }
    let vertical_up = spins[block_base(other, 1u - parity) + up * n + w];
    let vertical_down = spins[block_base(other, 1u - parity) + down * n + w];
    let aligned = one_hot(~(s ^ vertical_up), ~(s ^ vertical_down), ~(s ^ left), ~(s ^ right));
    var positive = array<u32, 5>(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu);
    if (model.plaquette == 1u) {
        let up_base = block_base(colour, 1u - parity) + up * n;
        let down_base = block_base(colour, 1u - parity) + down * n;
        let up_mid = spins[up_base + w];
        let up_side = shifted(up_base, w, towards_next);
        let down_mid = spins[down_base + w];
        let down_side = shifted(down_base, w, towards_next);
        var up_right = up_mid;
        var up_left = up_side;
        var down_right = down_mid;
        var down_left = down_side;
        if (towards_next) {
            up_right = up_side;
            up_left = up_mid;
            down_right = down_side;
            down_left = down_mid;
        }
        positive = one_hot(
            ~(s ^ right ^ vertical_up ^ up_right),
            ~(s ^ left ^ vertical_up ^ up_left),
            ~(s ^ right ^ vertical_down ^ down_right),
            ~(s ^ left ^ vertical_down ^ down_left),
        );
    }

    var masks: array<u32, 25>;
    var need = 0u;
    for (var k = 0u; k < model.class_count; k++) {
        let record = model.classes[k];
        masks[k] = aligned[record.x] & positive[record.y];
        need |= masks[k];
    }
    var undecided = need;
    var less = 0u;
    for (var level = 0u; level < 32u; level++) {
        if (undecided == 0u) {
            break;
        }
        let bits = random_word(y, w, level);
        var threshold_bits = 0u;
        for (var k = 0u; k < model.class_count; k++) {
            if (((model.classes[k].z >> (31u - level)) & 1u) == 1u) {
                threshold_bits |= masks[k];
            }
        }
        less |= undecided & ~bits & threshold_bits;
        undecided &= ~(bits ^ threshold_bits);
    }
    spins[target_index] = s ^ (~need | less);
}
