use super::*;

use benchtop_compute::rng::seeded;

use crate::data::{LoadOptions, load_field, sample_wind_paths};
use crate::legendre::legendre_column;
use crate::synthetic::{SpectrumShape, SpectrumSpec, random_coeffs};

/// Williamson et al. (1992) test case 6 values, converted to 1/day.
const RH_OMEGA: f64 = 7.848e-6 * SECONDS_PER_DAY;

#[test]
fn cos_lat_derivative_matches_finite_differences_of_legendre_functions() {
    let lmax = 12;
    let grid = Grid::new(GridKind::GaussLegendre, 16, 32).unwrap();
    let sht = Sht::new(&grid, lmax + 1).unwrap();
    let mus: Vec<f64> = grid
        .latitudes_deg()
        .iter()
        .map(|d| d.to_radians().sin())
        .collect();
    for (l, m) in [(1, 0), (2, 0), (5, 0), (3, 1), (7, 4), (12, 12), (12, 3)] {
        let mut a = Coeffs::zeros(lmax);
        a.set(l, m, Complex64::new(1.0, 0.0));
        let field = sht.inverse(&cos_lat_derivative(&a)).unwrap();
        for (i, mu) in mus.iter().enumerate() {
            let h = 1e-6;
            let p = |x: f64| legendre_column(lmax, m, x)[l - m];
            let want = (1.0 - mu * mu) * (p(mu + h) - p(mu - h)) / (2.0 * h);
            // Column 0 is longitude 0, where e^{imλ} = 1 (m ≥ 1 fields carry a factor 2).
            let factor = if m == 0 { 1.0 } else { 2.0 };
            let got = field[i * grid.nlon];
            assert!(
                (got - factor * want).abs() < 1e-6 * (1.0 + want.abs()),
                "(l, m) = ({l}, {m}) at μ = {mu}: {got} vs {}",
                factor * want
            );
        }
    }
    // ∂/∂λ of Y_33: at λ = 0, Re(i·3·Y) = 0; at λ = 30°, 2·Re(3i e^{iπ/2})·P = −6P.
    let mut a = Coeffs::zeros(lmax);
    a.set(3, 3, Complex64::new(1.0, 0.0));
    let field = Sht::new(&grid, lmax)
        .unwrap()
        .inverse(&longitude_derivative(&a))
        .unwrap();
    let p = legendre_column(lmax, 3, mus[4])[0];
    assert!(field[4 * grid.nlon].abs() < 1e-12);
    // Longitude 30° is column 32·30/360, not a grid point; use 45° (column 4): e^{i·3π/4}.
    let want = 2.0
        * (Complex64::new(0.0, 3.0) * Complex64::from_polar(1.0, 0.75 * std::f64::consts::PI)).re
        * p;
    assert!((field[4 * grid.nlon + 4] - want).abs() < 1e-12);
}

/// The Rossby–Haurwitz wind (m/s) and vorticity (1/s) on an equiangular grid, with ω = K in
/// 1/s (Williamson et al. 1992, test case 6).
fn rossby_haurwitz_wind(grid: &Grid, omega: f64, r: i32) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (mut u, mut v, mut zeta) = (Vec::new(), Vec::new(), Vec::new());
    let rf = f64::from(r);
    for lat in grid.latitudes_deg() {
        let phi = lat.to_radians();
        let (s, c) = phi.sin_cos();
        for lon in grid.longitudes_deg() {
            let lambda = lon.to_radians();
            let k = omega;
            u.push(
                EARTH_RADIUS_M
                    * (omega * c + k * c.powi(r - 1) * (rf * s * s - c * c) * (rf * lambda).cos()),
            );
            v.push(-EARTH_RADIUS_M * k * rf * c.powi(r - 1) * s * (rf * lambda).sin());
            zeta.push(
                2.0 * omega * s
                    - k * s * c.powi(r) * (rf * rf + 3.0 * rf + 2.0) * (rf * lambda).cos(),
            );
        }
    }
    (u, v, zeta)
}

#[test]
fn vorticity_from_wind_is_spectrally_accurate() {
    let grid = Grid::new(GridKind::Equiangular, 73, 144).unwrap();
    // Solid-body rotation: ζ = 2u₀ sin φ / a.
    let u0 = 30.0;
    let lats = grid.latitudes_deg();
    let u: Vec<f64> = lats
        .iter()
        .flat_map(|lat| std::iter::repeat_n(u0 * lat.to_radians().cos(), 144))
        .collect();
    let v = vec![0.0; grid.len()];
    let zeta = vorticity_from_wind(&grid, &u, &v).unwrap();
    let scale = 2.0 * u0 / EARTH_RADIUS_M;
    for (i, lat) in lats.iter().enumerate() {
        let want = scale * lat.to_radians().sin();
        let tolerance = if i == 0 || i == 72 { 1e-3 } else { 1e-11 };
        for j in [0, 37, 143] {
            let got = zeta[i * 144 + j];
            assert!(
                (got - want).abs() <= tolerance * scale,
                "row {i}: {got} vs {want}"
            );
        }
    }
    // Rossby–Haurwitz wave 4 (depends on longitude, crosses the poles).
    let (u, v, want) = rossby_haurwitz_wind(&grid, 7.848e-6, 4);
    let zeta = vorticity_from_wind(&grid, &u, &v).unwrap();
    let peak = want.iter().fold(0.0_f64, |m, z| m.max(z.abs()));
    for (index, (got, want)) in zeta.iter().zip(&want).enumerate() {
        let pole = !(144..72 * 144).contains(&index);
        let tolerance = if pole { 2e-3 } else { 1e-11 };
        assert!(
            (got - want).abs() <= tolerance * peak,
            "point {index}: {got} vs {want}"
        );
    }
    // Odd longitudes cannot be continued over the pole.
    let odd = Grid::new(GridKind::Equiangular, 7, 9).unwrap();
    assert!(vorticity_from_wind(&odd, &[0.0; 63], &[0.0; 63]).is_err());
}

#[test]
fn rossby_haurwitz_wave_keeps_its_shape_and_moves_at_the_analytic_speed() {
    let params = BarotropicParams {
        lmax: 21,
        dt_minutes: 30.0,
        diffusion_time_h: 0.0,
        ..BarotropicParams::default()
    };
    let model = BarotropicModel::new(&params).unwrap();
    assert_eq!((model.grid().nlat, model.grid().nlon), (34, 68));
    let start = rossby_haurwitz(21, RH_OMEGA, RH_OMEGA, 4).unwrap();
    // Only Y_10 and Y_54 are present.
    let wave = start.get(5, 4);
    assert!(wave.norm() > 0.1);
    for m in 0..=21 {
        for l in m..=21 {
            if (l, m) != (1, 0) && (l, m) != (5, 4) {
                assert!(start.get(l, m).norm() < 1e-12 * wave.norm(), "({l}, {m})");
            }
        }
    }
    let days = 1.0;
    let steps = 48;
    let end = model.integrate(&start, steps, &CancelToken::new()).unwrap();
    let nu = rossby_haurwitz_speed(RH_OMEGA, EARTH_ROTATION_PER_DAY, 4);
    // Haurwitz: ν ≈ 0.213 rad/day eastward for these values (about 12° per day).
    assert!((nu - 0.2128).abs() < 1e-3, "ν = {nu}");
    let expected = wave * Complex64::from_polar(1.0, -4.0 * nu * days);
    let error = (end.get(5, 4) - expected).norm() / wave.norm();
    assert!(error < 1e-6, "wave coefficient off by {error:e}");
    let measured_phase = (end.get(5, 4) / wave).arg() / (-4.0 * days);
    assert!(
        (measured_phase - nu).abs() < 1e-6,
        "phase speed {measured_phase} vs {nu}"
    );
    assert!((end.get(1, 0) - start.get(1, 0)).norm() < 1e-12);
    let stray: f64 = (0..=21)
        .flat_map(|m| (m..=21).map(move |l| (l, m)))
        .filter(|&(l, m)| (l, m) != (1, 0) && (l, m) != (5, 4))
        .map(|(l, m)| end.get(l, m).norm())
        .fold(0.0, f64::max);
    assert!(
        stray < 1e-10 * wave.norm(),
        "energy leaked to other modes: {stray:e}"
    );
}

#[test]
fn energy_and_enstrophy_are_conserved_without_diffusion() {
    let params = BarotropicParams {
        lmax: 21,
        diffusion_time_h: 0.0,
        ..BarotropicParams::default()
    };
    // Vorticity with an rms of about 10⁻⁴ s⁻¹ (≈ 8.6 per day): a lively flow.
    let spec = SpectrumSpec {
        shape: SpectrumShape::PowerLaw { exponent: 1.0 },
        variance: 8.6_f64.powi(2),
    };
    let mut start = random_coeffs(&spec.psd(21).unwrap(), &mut seeded(3)).unwrap();
    start.set(0, 0, Complex64::new(0.0, 0.0));
    let (e0, z0) = (kinetic_energy(&start), enstrophy(&start));
    // The truncated, alias-free dynamics conserve both exactly; what is left is the RK4
    // error, which falls as dt⁴ (one day of 10- and 5-minute steps).
    let drift = |dt_minutes: f64| {
        let model = BarotropicModel::new(&BarotropicParams {
            dt_minutes,
            ..params.clone()
        })
        .unwrap();
        let steps = (1440.0 / dt_minutes).round() as usize;
        let end = model.integrate(&start, steps, &CancelToken::new()).unwrap();
        let moved: f64 = end
            .data()
            .iter()
            .zip(start.data())
            .map(|(a, b)| (a - b).norm_sqr())
            .sum::<f64>();
        assert!(moved > 0.01 * z0, "the flow evolved");
        (
            ((kinetic_energy(&end) - e0) / e0).abs(),
            ((enstrophy(&end) - z0) / z0).abs(),
        )
    };
    let (e10, z10) = drift(10.0);
    let (e5, z5) = drift(5.0);
    assert!(
        e5 < 1e-5 && z5 < 1e-3,
        "drift at 5 min: energy {e5:e}, enstrophy {z5:e}"
    );
    assert!(
        e10 / e5 > 10.0 && z10 / z5 > 10.0,
        "not 4th order: {e10:e}/{e5:e}, {z10:e}/{z5:e}"
    );
    // With ∇⁸ diffusion both decay.
    let damped = BarotropicModel::new(&BarotropicParams {
        diffusion_time_h: 3.0,
        ..params
    })
    .unwrap();
    let end = damped.integrate(&start, 48, &CancelToken::new()).unwrap();
    assert!(kinetic_energy(&end) < e0 && enstrophy(&end) < 0.9 * z0);
}

#[test]
fn the_real_200_hpa_wind_becomes_a_model_state() {
    let (u_path, v_path) = sample_wind_paths();
    let options = LoadOptions {
        time_index: 0,
        ..LoadOptions::default()
    };
    let u = load_field(&u_path, &options).unwrap();
    let v = load_field(&v_path, &options).unwrap();
    let model = BarotropicModel::new(&BarotropicParams::default()).unwrap();
    let state = model
        .state_from_wind(&u.grid, &u.values, &v.values)
        .unwrap();
    assert_eq!(state.lmax(), 42);
    // The model's (rotational, T42) wind reproduces the data's wind at the same points.
    let (mu, mv) = model.wind(&state).unwrap();
    let mean_square = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64;
    let data_sample = Sht::new(&u.grid, 42).unwrap();
    let model_u = data_sample
        .inverse(&Sht::new(model.grid(), 42).unwrap().forward(&mu).unwrap())
        .unwrap();
    let model_v = data_sample
        .inverse(&Sht::new(model.grid(), 42).unwrap().forward(&mv).unwrap())
        .unwrap();
    // Compare away from the poles, where u and v are smooth scalars.
    let rows = 6..67;
    let pick = |x: &[f64]| -> Vec<f64> {
        rows.clone()
            .flat_map(|i| x[i * 144..(i + 1) * 144].to_vec())
            .collect()
    };
    let (du, dv): (Vec<f64>, Vec<f64>) = (
        pick(&model_u)
            .iter()
            .zip(pick(&u.values))
            .map(|(a, b)| a - b)
            .collect(),
        pick(&model_v)
            .iter()
            .zip(pick(&v.values))
            .map(|(a, b)| a - b)
            .collect(),
    );
    let relative = ((mean_square(&du) + mean_square(&dv))
        / (mean_square(&pick(&u.values)) + mean_square(&pick(&v.values))))
    .sqrt();
    assert!(relative < 0.15, "relative wind error {relative}");
    // Kinetic energy of the January mean 200 hPa flow: of order 300 m²/s².
    let energy = kinetic_energy(&state) * (EARTH_RADIUS_M / SECONDS_PER_DAY).powi(2);
    assert!((100.0..1000.0).contains(&energy), "energy {energy} m²/s²");
    // The model runs from it.
    let later = model.integrate(&state, 8, &CancelToken::new()).unwrap();
    assert!(kinetic_energy(&later) > 0.95 * kinetic_energy(&state));
}
