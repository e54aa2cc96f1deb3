"""Label audit: re-execute SURGE's released records and explain every disagreement (issue 6).

convert   released JSON record -> (Program, ExecutionSetting) or a refusal with its reason
metrics   each subset's score as SURGE's eval/ defines it
classify  one class per label, with a short diff as evidence
plan      requests to run, and audit rows from the results
report    terminal summary and a self-contained HTML page
"""
