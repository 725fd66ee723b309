"""Git guards: protected branches, the test-run ledger and the tests-ran gate."""
