#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The shipped Prometheus rules, by Prometheus' own rule tester: which alerts
# fire on series shaped as fabprobe export serves them, and which do not
# (tests/fixtures/prometheus/rules_test.yml).
set -euo pipefail
cd "$(dirname "$0")/../.."
promtool check rules docs/prometheus/fabprobe-alerts.yml
promtool test rules tests/fixtures/prometheus/rules_test.yml
echo "prometheus rules: checked and tested"
