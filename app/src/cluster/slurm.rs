//! Slurm's commands: the batch script and the `sbatch` line, and running `sbatch`, `squeue`,
//! `sacct` and `scancel` with their output parsed.
//!
//! The commands are found on `PATH` and read `SLURM_CONF` like any Slurm client.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context as _;

/// The resources each task asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SlurmOptions {
    /// `--partition`.
    pub partition: Option<String>,
    /// `--time` (e.g. `01:00:00`).
    pub time: Option<String>,
    /// `--cpus-per-task` (also the task's `RAYON_NUM_THREADS`).
    pub cpus_per_task: u32,
    /// `--mem` (e.g. `4G`).
    pub mem: Option<String>,
    /// The `%J` of `--array=…%J`: at most this many tasks at once.
    pub max_parallel: Option<usize>,
}

/// What the batch script runs.
#[derive(Clone, Debug)]
pub struct ScriptSpec<'a> {
    /// `--job-name`.
    pub job_name: &'a str,
    /// The job folder (the script's working folder; its `logs/` takes the output).
    pub folder: &'a Path,
    /// Array tasks, or `None` for a single job.
    pub array_tasks: Option<usize>,
    /// The command, already split into words; `$SLURM_ARRAY_TASK_ID` may appear as a word.
    pub command: Vec<String>,
}

/// A word for the shell: left alone when plain, else in single quotes.
pub fn shell_word(word: &str) -> String {
    if word == "$SLURM_ARRAY_TASK_ID" {
        return "\"$SLURM_ARRAY_TASK_ID\"".to_owned();
    }
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The batch script: `#SBATCH` lines for the job name, array, logs, folder and resources, then
/// the command (exec'd, so that `scancel` signals it directly).
pub fn batch_script(spec: &ScriptSpec<'_>, options: &SlurmOptions) -> String {
    let folder = spec.folder.display();
    let mut lines = vec![
        "#!/bin/bash".to_owned(),
        format!(
            "# Written by {} for Slurm; submit with `sbatch {}/{}`.",
            crate::build_info::version_line(),
            folder,
            super::folder::SCRIPT
        ),
        format!("#SBATCH --job-name={}", spec.job_name),
        format!("#SBATCH --chdir={folder}"),
    ];
    let log = if let Some(tasks) = spec.array_tasks {
        let throttle = options
            .max_parallel
            .map_or_else(String::new, |j| format!("%{j}"));
        lines.push(format!(
            "#SBATCH --array=0-{}{throttle}",
            tasks.saturating_sub(1)
        ));
        "task-%a"
    } else {
        "task-0"
    };
    lines.push(format!("#SBATCH --output={folder}/logs/{log}.out"));
    lines.push(format!("#SBATCH --error={folder}/logs/{log}.err"));
    lines.push(format!(
        "#SBATCH --cpus-per-task={}",
        options.cpus_per_task.max(1)
    ));
    for (flag, value) in [
        ("time", &options.time),
        ("partition", &options.partition),
        ("mem", &options.mem),
    ] {
        if let Some(value) = value {
            lines.push(format!("#SBATCH --{flag}={value}"));
        }
    }
    lines.push("set -eu".to_owned());
    lines.push("export RAYON_NUM_THREADS=\"${SLURM_CPUS_PER_TASK:-1}\"".to_owned());
    let command: Vec<String> = spec.command.iter().map(|w| shell_word(w)).collect();
    lines.push(format!("exec {}", command.join(" ")));
    lines.join("\n") + "\n"
}

/// Checks a `--time`, `--mem` or `--partition` value before it goes into a `#SBATCH` line.
pub fn check_option(flag: &str, value: &str) -> anyhow::Result<()> {
    if value.is_empty() || value.chars().any(|c| c.is_whitespace() || c == '#') {
        anyhow::bail!("--{flag} `{value}`: expected one word without spaces");
    }
    Ok(())
}

/// The `sbatch` command line that submits `script`.
pub fn sbatch_line(script: &Path) -> Vec<String> {
    vec![
        "sbatch".to_owned(),
        "--parsable".to_owned(),
        script.display().to_string(),
    ]
}

/// Where Slurm's commands come from: a folder holding `sbatch`, `squeue`, `sacct` and
/// `scancel` (else `PATH`) and a `SLURM_CONF` (else the environment's). The CLI uses the
/// environment; the window lets the user name both, since a desktop started from a menu may
/// lack the `PATH` and `SLURM_CONF` a login shell sets up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Commands {
    /// The folder of Slurm's commands (`None`: found on `PATH`).
    pub folder: Option<PathBuf>,
    /// The `SLURM_CONF` they read (`None`: the environment's).
    pub conf: Option<PathBuf>,
}

impl Commands {
    /// The program `name` as it is run: in [`Self::folder`], or the bare name for `PATH`.
    pub fn program(&self, name: &str) -> String {
        self.folder.as_ref().map_or_else(
            || name.to_owned(),
            |folder| folder.join(name).display().to_string(),
        )
    }

    fn run(&self, name: &str, args: &[String]) -> anyhow::Result<std::process::Output> {
        let program = self.program(name);
        let mut command = Command::new(&program);
        command.args(args);
        if let Some(conf) = &self.conf {
            command.env("SLURM_CONF", conf);
        }
        command.output().map_err(|error| {
            if error.kind() == std::io::ErrorKind::NotFound {
                anyhow::anyhow!(
                    "`{program}` was not found: run this on a machine with Slurm's commands (a \
                     login node), or use --dry-run and submit the printed command there"
                )
            } else {
                anyhow::anyhow!("`{program}` could not run: {error}")
            }
        })
    }

    /// Runs the `sbatch` line (its first word names the command) and returns the job id it
    /// prints.
    pub fn submit(&self, line: &[String]) -> anyhow::Result<String> {
        let (program, args) = line.split_first().context("empty sbatch line")?;
        let output = self.run(program, args)?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            anyhow::bail!(
                "`{}` failed: {}",
                line.join(" "),
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        parse_parsable(&stdout)
            .with_context(|| format!("`{}` printed `{}`", line.join(" "), stdout.trim()))
    }

    /// The queue's view of job `job_id`: task (or 0 for a job that is not an array) → state.
    /// A job Slurm no longer knows gives an empty map.
    pub fn queue(&self, job_id: &str) -> anyhow::Result<BTreeMap<usize, QueueState>> {
        super::untrusted::check_slurm_job_id(job_id)?;
        let args = words(&["-h", "-r", "-j", job_id, "-o", "%i|%T"]);
        let output = self.run("squeue", &args)?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            if stderr.contains("Invalid job id") {
                return Ok(BTreeMap::new());
            }
            anyhow::bail!("squeue failed: {}", stderr.trim());
        }
        Ok(parse_squeue(
            &String::from_utf8_lossy(&output.stdout),
            job_id,
        ))
    }

    /// Slurm's final states of job `job_id`'s tasks from `sacct`, or `None` where accounting
    /// is not available (as on the local test cluster).
    pub fn accounting(&self, job_id: &str) -> Option<BTreeMap<usize, String>> {
        super::untrusted::check_slurm_job_id(job_id).ok()?;
        let args = words(&["-n", "-P", "-X", "-j", job_id, "-o", "JobID,State"]);
        let output = self.run("sacct", &args).ok()?;
        output
            .status
            .success()
            .then(|| parse_sacct(&String::from_utf8_lossy(&output.stdout), job_id))
    }

    /// Cancels job `job_id`, or only its array task `task`.
    pub fn cancel(&self, job_id: &str, task: Option<usize>) -> anyhow::Result<()> {
        super::untrusted::check_slurm_job_id(job_id)?;
        let target = task.map_or_else(|| job_id.to_owned(), |t| format!("{job_id}_{t}"));
        let output = self.run("scancel", std::slice::from_ref(&target))?;
        if !output.status.success() {
            anyhow::bail!(
                "scancel {target} failed: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        Ok(())
    }
}

fn words(args: &[&str]) -> Vec<String> {
    args.iter().map(ToString::to_string).collect()
}

/// The job id of `sbatch --parsable` output: `123` or `123;cluster`.
pub fn parse_parsable(text: &str) -> anyhow::Result<String> {
    let line = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let id = line.split(';').next().unwrap_or("").trim();
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        anyhow::bail!("no job id in sbatch's output");
    }
    Ok(id.to_owned())
}

/// A task's state in the queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueueState {
    /// Waiting for resources (PENDING, CONFIGURING, …).
    Queued(String),
    /// Running (RUNNING, COMPLETING, …).
    Running(String),
}

/// Parses `squeue -h -r -o '%i|%T'` lines (`123_4|RUNNING`, `123|PENDING`) of job `job_id`.
pub fn parse_squeue(text: &str, job_id: &str) -> BTreeMap<usize, QueueState> {
    let mut states = BTreeMap::new();
    for line in text.lines() {
        let Some((id, state)) = line.trim().split_once('|') else {
            continue;
        };
        let task = match id.split_once('_') {
            Some((job, task)) if job == job_id => task.parse().ok(),
            None if id == job_id => Some(0),
            _ => None,
        };
        let Some(task) = task else { continue };
        let state = state.trim().to_owned();
        let queued = matches!(
            state.as_str(),
            "PENDING" | "CONFIGURING" | "REQUEUED" | "REQUEUE_HOLD" | "RESV_DEL_HOLD"
        );
        states.insert(
            task,
            if queued {
                QueueState::Queued(state)
            } else {
                QueueState::Running(state)
            },
        );
    }
    states
}

/// Parses `sacct -n -P -X -o JobID,State` lines (`123_4|CANCELLED by 0`).
pub fn parse_sacct(text: &str, job_id: &str) -> BTreeMap<usize, String> {
    text.lines()
        .filter_map(|line| {
            let (id, state) = line.trim().split_once('|')?;
            let task = match id.split_once('_') {
                Some((job, task)) if job == job_id => task.parse().ok()?,
                None if id == job_id => 0,
                _ => return None,
            };
            Some((task, state.trim().to_owned()))
        })
        .collect()
}

/// Cancels job `job_id` (or its task `task`) with the environment's Slurm
/// ([`Commands::cancel`]).
pub fn cancel(job_id: &str, task: Option<usize>) -> anyhow::Result<()> {
    Commands::default().cancel(job_id, task)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_slurm_output() {
        assert_eq!(parse_parsable("4242\n").unwrap(), "4242");
        assert_eq!(parse_parsable("17;cluster-a\n").unwrap(), "17");
        assert!(parse_parsable("sbatch: error\n").is_err());
        let queue = parse_squeue(
            "12_0|RUNNING\n12_3|PENDING\n13_1|RUNNING\n12_[5-7%2]|PENDING\n",
            "12",
        );
        assert_eq!(queue.len(), 2);
        assert_eq!(queue[&0], QueueState::Running("RUNNING".into()));
        assert_eq!(queue[&3], QueueState::Queued("PENDING".into()));
        assert_eq!(
            parse_squeue("9|PENDING\n", "9")[&0],
            QueueState::Queued("PENDING".into())
        );
        let done = parse_sacct(
            "12_0|COMPLETED\n12_1|CANCELLED by 0\n12_1.batch|CANCELLED\n",
            "12",
        );
        assert_eq!(done.len(), 2);
        assert_eq!(done[&1], "CANCELLED by 0");
    }

    #[test]
    fn scripts_throttle_the_array_and_quote_words() {
        let script = batch_script(
            &ScriptSpec {
                job_name: "benchtop-x",
                folder: Path::new("/shared/p.data/cluster/x-1"),
                array_tasks: Some(10),
                command: vec![
                    "/opt/bench top".into(),
                    "sweep".into(),
                    "--task".into(),
                    "$SLURM_ARRAY_TASK_ID".into(),
                ],
            },
            &SlurmOptions {
                cpus_per_task: 2,
                max_parallel: Some(3),
                time: Some("00:10:00".into()),
                ..SlurmOptions::default()
            },
        );
        assert!(script.contains("#SBATCH --array=0-9%3\n"), "{script}");
        assert!(script.contains("#SBATCH --time=00:10:00\n"));
        assert!(script.contains("--error=/shared/p.data/cluster/x-1/logs/task-%a.err"));
        assert!(!script.contains("--partition"));
        assert!(
            script.contains("exec '/opt/bench top' sweep --task \"$SLURM_ARRAY_TASK_ID\"\n"),
            "{script}"
        );
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert!(check_option("time", "1:00:00").is_ok());
        assert!(check_option("mem", "4G\n#SBATCH").is_err());
    }
}
