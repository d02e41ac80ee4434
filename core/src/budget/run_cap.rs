//! A lifetime cap on retries ("per run").

/// Settings of a [`RunCap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct RunCapConfig {
    /// Retries allowed for the lifetime of the policy. 0 is valid and means
    /// "never retry" (a kill switch that keeps the rest of the config).
    pub max_retries: u32,
}

impl Default for RunCapConfig {
    /// 100 retries per run: a batch job or an agent session that has retried a
    /// hundred times is generating load, not making progress.
    fn default() -> Self {
        RunCapConfig { max_retries: 100 }
    }
}

/// At most `max_retries` retries for the lifetime of the policy.
///
/// The seed's "per run" cap: a job, a CLI invocation or an agent session that
/// keeps hitting failures should stop retrying and fail fast rather than turn
/// into a load generator. It never refills; a new run builds a new policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunCap {
    pub(super) config: RunCapConfig,
    pub(super) used: u32,
}

impl RunCap {
    /// A fresh cap. Every `u32` is a valid maximum, so this cannot fail.
    #[must_use]
    pub const fn new(config: RunCapConfig) -> Self {
        RunCap { config, used: 0 }
    }

    /// The settings in force.
    #[must_use]
    pub const fn config(&self) -> &RunCapConfig {
        &self.config
    }

    /// Whether a retry would be allowed, without taking it.
    #[must_use]
    pub const fn can_withdraw(&self) -> bool {
        self.used < self.config.max_retries
    }

    /// Takes one retry if any is left; a refusal changes nothing.
    #[must_use]
    pub fn try_withdraw(&mut self) -> bool {
        if !self.can_withdraw() {
            return false;
        }
        self.used = self.used.saturating_add(1);
        true
    }

    /// Retries taken so far.
    #[must_use]
    pub const fn used(&self) -> u32 {
        self.used
    }

    /// Retries left (0 once exhausted, also if a new maximum is below `used`).
    #[must_use]
    pub const fn remaining(&self) -> u32 {
        self.config.max_retries.saturating_sub(self.used)
    }

    /// Replaces the maximum and keeps the retries already used.
    pub(super) fn reconfigure(&mut self, config: RunCapConfig) {
        self.config = config;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_for_the_whole_run() {
        let mut cap = RunCap::new(RunCapConfig { max_retries: 2 });
        assert!(cap.try_withdraw());
        assert!(cap.try_withdraw());
        assert!(!cap.try_withdraw());
        assert_eq!((cap.used(), cap.remaining()), (2, 0));
    }

    #[test]
    fn zero_means_never() {
        let mut cap = RunCap::new(RunCapConfig { max_retries: 0 });
        assert!(!cap.try_withdraw());
        assert_eq!(cap.used(), 0);
    }

    #[test]
    fn lowering_the_cap_keeps_usage() {
        let mut cap = RunCap::new(RunCapConfig::default());
        for _ in 0..5 {
            assert!(cap.try_withdraw());
        }
        cap.reconfigure(RunCapConfig { max_retries: 3 });
        assert!(!cap.can_withdraw());
        assert_eq!(cap.remaining(), 0);
    }

    #[test]
    fn snapshot_round_trip() {
        let mut cap = RunCap::new(RunCapConfig { max_retries: 7 });
        assert!(cap.try_withdraw());
        let json = crate::state::write_snapshot(&cap);
        assert_eq!(json, r#"{"config":{"max_retries":7},"used":1}"#);
        assert_eq!(crate::state::read_snapshot::<RunCap>(&json).unwrap(), cap);
    }
}
