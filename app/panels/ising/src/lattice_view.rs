//! The live lattice picture: drawn straight from the GPU buffer when the engine shares the
//! window's device, else from a CPU snapshot uploaded as a texture.

use std::sync::Arc;

use benchtop_ising::SpinConfig;
use eframe::egui_wgpu::{self, CallbackResources, CallbackTrait, RenderState, ScreenDescriptor};
use eframe::wgpu;

/// Colour of up spins (+1).
pub const UP_COLOUR: [f32; 4] = [0.96, 0.93, 0.85, 1.0];
/// Colour of down spins (−1).
pub const DOWN_COLOUR: [f32; 4] = [0.13, 0.20, 0.36, 1.0];

/// A lattice living on the shared GPU device.
#[derive(Clone, Debug)]
pub struct GpuLattice {
    /// The packed spin buffer the sampler updates.
    pub buffer: wgpu::Buffer,
    /// Side L.
    pub size: usize,
}

/// Ephemeral drawing state (a texture for CPU snapshots).
#[derive(Default)]
pub struct LatticeView {
    texture: Option<egui::TextureHandle>,
    texture_source: Option<Arc<SpinConfig>>,
}

fn colour32(c: [f32; 4]) -> egui::Color32 {
    let channel = |v: f32| (v * 255.0).round() as u8;
    egui::Color32::from_rgb(channel(c[0]), channel(c[1]), channel(c[2]))
}

impl LatticeView {
    /// Draws the lattice in a square of `side` points.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        side: f32,
        snapshot: Option<&Arc<SpinConfig>>,
        gpu: Option<&GpuLattice>,
        render_state: Option<&RenderState>,
    ) {
        let (rect, response) = ui.allocate_exact_size(egui::vec2(side, side), egui::Sense::hover());
        if let (Some(gpu), Some(render_state)) = (gpu, render_state) {
            ensure_pipeline(render_state);
            ui.painter().add(egui_wgpu::Callback::new_paint_callback(
                rect,
                LatticeCallback {
                    buffer: gpu.buffer.clone(),
                    size: gpu.size,
                },
            ));
            response.on_hover_text(format!(
                "{0}×{0} lattice, drawn from the GPU buffer",
                gpu.size
            ));
            return;
        }
        let Some(snapshot) = snapshot else {
            ui.painter()
                .rect_filled(rect, 0.0, ui.visuals().extreme_bg_color);
            ui.painter().text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                "no lattice yet",
                egui::FontId::proportional(14.0),
                ui.visuals().weak_text_color(),
            );
            return;
        };
        let stale = self
            .texture_source
            .as_ref()
            .is_none_or(|source| !Arc::ptr_eq(source, snapshot));
        if stale {
            let size = snapshot.size();
            let (up, down) = (colour32(UP_COLOUR), colour32(DOWN_COLOUR));
            let pixels: Vec<egui::Color32> = snapshot
                .spins()
                .iter()
                .map(|&s| if s > 0 { up } else { down })
                .collect();
            let image = egui::ColorImage::new([size, size], pixels);
            let options = egui::TextureOptions::NEAREST;
            match &mut self.texture {
                Some(texture) => texture.set(image, options),
                None => self.texture = Some(ui.ctx().load_texture("ising lattice", image, options)),
            }
            self.texture_source = Some(Arc::clone(snapshot));
        }
        if let Some(texture) = &self.texture {
            let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
            ui.painter()
                .image(texture.id(), rect, uv, egui::Color32::WHITE);
            response.on_hover_text(format!("{0}×{0} lattice", snapshot.size()));
        }
    }
}

/// GPU resources of the lattice pipeline, kept in the renderer's callback resources.
struct LatticePipeline {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    uniform: wgpu::Buffer,
}

/// The bind group of the buffer being drawn this frame.
struct LatticeBindGroup(wgpu::BindGroup);

#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct ViewUniform {
    size: u32,
    half: u32,
    words_per_row: u32,
    pad: u32,
    up: [f32; 4],
    down: [f32; 4],
}

fn ensure_pipeline(render_state: &RenderState) {
    let mut renderer = render_state.renderer.write();
    if renderer.callback_resources.contains::<LatticePipeline>() {
        return;
    }
    let device = &render_state.device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("ising_view.wgsl"),
        source: wgpu::ShaderSource::Wgsl(benchtop_shaders::ISING_VIEW.into()),
    });
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("ising view"),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 1,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
        ],
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("ising view"),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("ising view"),
        layout: Some(&pipeline_layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            buffers: &[],
        },
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            targets: &[Some(render_state.target_format.into())],
        }),
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        multiview_mask: None,
        cache: None,
    });
    let uniform = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("ising view uniform"),
        size: std::mem::size_of::<ViewUniform>() as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    renderer.callback_resources.insert(LatticePipeline {
        pipeline,
        layout,
        uniform,
    });
}

struct LatticeCallback {
    buffer: wgpu::Buffer,
    size: usize,
}

impl CallbackTrait for LatticeCallback {
    fn prepare(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        _screen: &ScreenDescriptor,
        _encoder: &mut wgpu::CommandEncoder,
        resources: &mut CallbackResources,
    ) -> Vec<wgpu::CommandBuffer> {
        let Some(pipeline) = resources.get::<LatticePipeline>() else {
            return Vec::new();
        };
        let uniform = ViewUniform {
            size: self.size as u32,
            half: (self.size / 2) as u32,
            words_per_row: (self.size / 64) as u32,
            pad: 0,
            up: UP_COLOUR,
            down: DOWN_COLOUR,
        };
        queue.write_buffer(&pipeline.uniform, 0, bytemuck::bytes_of(&uniform));
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("ising view"),
            layout: &pipeline.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: self.buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: pipeline.uniform.as_entire_binding(),
                },
            ],
        });
        resources.insert(LatticeBindGroup(bind_group));
        Vec::new()
    }

    fn paint(
        &self,
        _info: egui::PaintCallbackInfo,
        render_pass: &mut wgpu::RenderPass<'static>,
        resources: &CallbackResources,
    ) {
        let (Some(pipeline), Some(bind_group)) = (
            resources.get::<LatticePipeline>(),
            resources.get::<LatticeBindGroup>(),
        ) else {
            return;
        };
        render_pass.set_pipeline(&pipeline.pipeline);
        render_pass.set_bind_group(0, &bind_group.0, &[]);
        render_pass.draw(0..3, 0..1);
    }
}
