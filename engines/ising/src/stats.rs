//! Statistics of Monte Carlo time series: binning, jackknife, autocorrelation time.
