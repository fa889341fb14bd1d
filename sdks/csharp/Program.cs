// Program.cs: check the license before anything else.
using Licensing;

// The app version sent on activation defaults to this assembly's (the project's <Version>); pass appVersion: to override.
using var license = new LicenseClient();

if (args.Length > 0 && args[0] == "--deactivate")
{
    var released = await license.DeactivateAsync();
    Console.WriteLine(released.Message);
    return released.Status == LicenseStatus.NeedsKey ? 0 : 1;
}

if (args.Length > 0 && args[0] == "--buy")
{
    // Buy a license in the browser and activate it here (or: offer this when CheckAsync needs a key).
    var bought = await license.BuyAndActivateAsync();
    Console.WriteLine(bought.Message);
    if (bought.LicenseKey is not null) Console.WriteLine($"License key: {bought.LicenseKey}");
    return bought.Allowed ? 0 : 1;
}

var outcome = await license.CheckAsync();
var fromEnvironment = Environment.GetEnvironmentVariable("LICENSE_KEY");
for (var attempt = 0; outcome.Status == LicenseStatus.NeedsKey && attempt < 3; attempt++)
{
    string? key;
    if (attempt == 0 && !string.IsNullOrWhiteSpace(fromEnvironment))
    {
        key = fromEnvironment;
    }
    else
    {
        Console.WriteLine(outcome.Message);
        Console.Write("License key (XXXX-XXXX-XXXX-XXXX): ");
        key = Console.ReadLine();
        if (key is null) break;
    }
    outcome = await license.ActivateAsync(key);
}

Console.WriteLine(outcome.Message);
if (!outcome.Allowed) return 1;

// ... start the app ...
return 0;
