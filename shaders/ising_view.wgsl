// Draws a packed Ising lattice straight from the GPU buffer the checkerboard kernel updates
// (layout: engines/ising/src/checkerboard/packed.rs). One full-screen triangle; each fragment
// looks up the spin under it.

struct View {
    size: u32,
    half: u32,
    words_per_row: u32,
    _pad: u32,
    up_colour: vec4<f32>,
    down_colour: vec4<f32>,
}

@group(0) @binding(0) var<storage, read> spins: array<u32>;
@group(0) @binding(1) var<uniform> view: View;

struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> VertexOut {
    let corner = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    var out: VertexOut;
    out.position = vec4<f32>(corner * 2.0 - 1.0, 0.0, 1.0);
    out.uv = vec2<f32>(corner.x, 1.0 - corner.y);
    return out;
}

@fragment
fn fs_main(input: VertexOut) -> @location(0) vec4<f32> {
    let x = min(u32(input.uv.x * f32(view.size)), view.size - 1u);
    let y = min(u32(input.uv.y * f32(view.size)), view.size - 1u);
    let colour = (x + y) & 1u;
    let parity = y & 1u;
    let j = x >> 1u;
    let index = ((2u * colour + parity) * view.half + (y >> 1u)) * view.words_per_row + (j >> 5u);
    let bit = (spins[index] >> (j & 31u)) & 1u;
    return select(view.up_colour, view.down_colour, bit == 1u);
}
