"""The fetch benchmarks' template, printed as JSON (scripts/bench-fetch, scripts/bench-fetch-ab).

Realistic: 200 parameters, 30 conditions (10 percent rollouts with their own seeds, 10
app-version rules, 10 country-and-platform rules), a ~10 KB answer. PLAIN=1: the same size
without conditions.
"""
import json, os
if os.environ.get("PLAIN") == "1":
    params = {f"param_{i:03d}": {"defaultValue": {"value": "d" * 36}} for i in range(200)}
    print(json.dumps({"parameters": params}))
    raise SystemExit
conditions = []
for i in range(10):
    conditions.append({"name": f"rollout_{i}", "expression": f"percent('exp{i}') between {i * 7} and {i * 7 + 25}"})
    conditions.append({"name": f"version_{i}", "expression": f"app.version.>=(['2.{i * 5}.0'])"})
    conditions.append({"name": f"country_{i}", "expression": f"device.country in ['{'ABCDEFGHIJ'[i]}X', 'US'] && device.os == 'android'"})
params = {}
for i in range(200):
    conditional = {conditions[(i * 7 + j) % 30]["name"]: {"value": f"v{j}-" + "c" * 24} for j in range(2)}
    params[f"param_{i:03d}"] = {"defaultValue": {"value": "d" * 28}, "conditionalValues": conditional}
print(json.dumps({"conditions": conditions, "parameters": params}))
