// A bridge while the scenario code moves: `DefaultScenario` (Lab/Scenario, on its way to the
// Scenario module) names `AssetSpec` and `AssetGenerator` without importing AssetGen, and this
// re-export of just those two types keeps it compiling untouched. When it moves, it imports
// AssetGen itself and this file goes. Everything else imports AssetGen by name.
@_exported import struct AssetGen.AssetSpec
@_exported import struct AssetGen.AssetGenerator
