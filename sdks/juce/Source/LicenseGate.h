// LicenseGate: runs the license check off the message thread and asks for the key in an AlertWindow.
// Use it from your plugin editor or main window:
//
//     LicenseGate licenseGate { [this] (const licensing::Outcome& o) { setLicensed (o.allowed()); } };
//     ... in the constructor: licenseGate.start (this);
//
// The app version sent when this machine is activated is licensing::defaultAppVersion() (a plugin's version, or the
// JUCEApplication's); pass another as the second argument, e.g. ProjectInfo::versionString from a Projucer project.
//
// Keep the processor running in a safe mode (e.g. bypass or silence) until allowed() is true.
#pragma once

#include <juce_gui_basics/juce_gui_basics.h>
#include "LicenseManager.h"

class LicenseGate
{
public:
    using Callback = std::function<void (const licensing::Outcome&)>;

    explicit LicenseGate (Callback onResult, juce::String appVersion = licensing::defaultAppVersion())
        : onResult (std::move (onResult)), appVersion (std::move (appVersion)) {}

    ~LicenseGate() { *alive = false; }

    /** Checks the stored key in the background; asks for a key over parentComponent when needed. */
    void start (juce::Component* parentComponent)
    {
        parent = parentComponent;
        runInBackground ([version = appVersion] { return licensing::checkLicense (version); });
    }

    /** For a "Buy a license" button: the purchase page opens in the browser, and the result arrives like a check's. */
    void buyLicense()
    {
        runInBackground ([version = appVersion] { return licensing::buyAndActivate (version); });
    }

    /** For a "Release this machine" menu item. */
    void releaseThisMachine()
    {
        runInBackground ([] { return licensing::deactivateThisMachine(); });
    }

private:
    void runInBackground (std::function<licensing::Outcome()> job)
    {
        juce::Thread::launch ([alive = alive, job = std::move (job), this]
        {
            const auto outcome = job();
            juce::MessageManager::callAsync ([alive, outcome, this]
            {
                if (*alive)
                    handle (outcome);
            });
        });
    }

    void handle (const licensing::Outcome& outcome)
    {
        if (outcome.status == licensing::Status::needsKey && attempts++ < 3)
        {
            askForKey (outcome.message);
            return;
        }

        if (! outcome.allowed() || outcome.status == licensing::Status::offlineGrace || outcome.trial)
            juce::AlertWindow::showMessageBoxAsync (outcome.allowed() ? juce::MessageBoxIconType::InfoIcon
                                                                      : juce::MessageBoxIconType::WarningIcon,
                                                    "License", outcome.message);

        if (onResult)
            onResult (outcome);
    }

    void askForKey (const juce::String& message)
    {
        prompt = std::make_unique<juce::AlertWindow> ("Activate", message, juce::MessageBoxIconType::QuestionIcon, parent);
        prompt->addTextEditor ("key", {}, "License key (XXXX-XXXX-XXXX-XXXX):");
        prompt->addButton ("Activate", 1, juce::KeyPress (juce::KeyPress::returnKey));
        prompt->addButton ("Buy a license", 2);
        prompt->addButton ("Cancel", 0, juce::KeyPress (juce::KeyPress::escapeKey));
        prompt->enterModalState (true, juce::ModalCallbackFunction::create ([this, alive = alive] (int result)
        {
            if (! *alive)
                return;

            const auto key = prompt->getTextEditorContents ("key");
            prompt.reset();

            if (result == 1)
                runInBackground ([key, version = appVersion] { return licensing::activateLicense (key, version); });
            else if (result == 2)
                buyLicense();
            else if (onResult)
                onResult (licensing::Outcome { licensing::Status::needsKey, "A license key is required to use this app.", false, 0, {} });
        }), false);
    }

    Callback onResult;
    juce::String appVersion;
    juce::Component* parent = nullptr;
    std::unique_ptr<juce::AlertWindow> prompt;
    std::shared_ptr<bool> alive = std::make_shared<bool> (true);
    int attempts = 0;

    JUCE_DECLARE_NON_COPYABLE (LicenseGate)
};
