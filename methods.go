// Code in this file gives every typed object of the files the same two methods: reading
// with exact member names (unknown members kept in Extra, errors naming the JSON pointer)
// and writing every field and Extra back.

package sliccbrowsers

// UnmarshalJSON reads a Catalog: members by their exact names, unknown ones into Extra.
func (v *Catalog) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Catalog: its fields, then the members of Extra.
func (v Catalog) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Browser: members by their exact names, unknown ones into Extra.
func (v *Browser) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Browser: its fields, then the members of Extra.
func (v Browser) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a MacosBrowser: members by their exact names, unknown ones into Extra.
func (v *MacosBrowser) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a MacosBrowser: its fields, then the members of Extra.
func (v MacosBrowser) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a WindowsBrowser: members by their exact names, unknown ones into Extra.
func (v *WindowsBrowser) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a WindowsBrowser: its fields, then the members of Extra.
func (v WindowsBrowser) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a LinuxBrowser: members by their exact names, unknown ones into Extra.
func (v *LinuxBrowser) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a LinuxBrowser: its fields, then the members of Extra.
func (v LinuxBrowser) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Electron: members by their exact names, unknown ones into Extra.
func (v *Electron) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Electron: its fields, then the members of Extra.
func (v Electron) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a ElectronApp: members by their exact names, unknown ones into Extra.
func (v *ElectronApp) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a ElectronApp: its fields, then the members of Extra.
func (v ElectronApp) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Rank: members by their exact names, unknown ones into Extra.
func (v *Rank) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Rank: its fields, then the members of Extra.
func (v Rank) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Tiers: members by their exact names, unknown ones into Extra.
func (v *Tiers) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Tiers: its fields, then the members of Extra.
func (v Tiers) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Discovery: members by their exact names, unknown ones into Extra.
func (v *Discovery) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Discovery: its fields, then the members of Extra.
func (v Discovery) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a SourceRank: members by their exact names, unknown ones into Extra.
func (v *SourceRank) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a SourceRank: its fields, then the members of Extra.
func (v SourceRank) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Names: members by their exact names, unknown ones into Extra.
func (v *Names) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Names: its fields, then the members of Extra.
func (v Names) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a ProcessScan: members by their exact names, unknown ones into Extra.
func (v *ProcessScan) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a ProcessScan: its fields, then the members of Extra.
func (v ProcessScan) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Seven: members by their exact names, unknown ones into Extra.
func (v *Seven) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Seven: its fields, then the members of Extra.
func (v Seven) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Pref: members by their exact names, unknown ones into Extra.
func (v *Pref) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Pref: its fields, then the members of Extra.
func (v Pref) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a DiscardException: members by their exact names, unknown ones into Extra.
func (v *DiscardException) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a DiscardException: its fields, then the members of Extra.
func (v DiscardException) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a ProtectedOrigins: members by their exact names, unknown ones into Extra.
func (v *ProtectedOrigins) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a ProtectedOrigins: its fields, then the members of Extra.
func (v ProtectedOrigins) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Profiles: members by their exact names, unknown ones into Extra.
func (v *Profiles) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Profiles: its fields, then the members of Extra.
func (v Profiles) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a SixProfiles: members by their exact names, unknown ones into Extra.
func (v *SixProfiles) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a SixProfiles: its fields, then the members of Extra.
func (v SixProfiles) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a SixRoots: members by their exact names, unknown ones into Extra.
func (v *SixRoots) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a SixRoots: its fields, then the members of Extra.
func (v SixRoots) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a SixRoot: members by their exact names, unknown ones into Extra.
func (v *SixRoot) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a SixRoot: its fields, then the members of Extra.
func (v SixRoot) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Launch: members by their exact names, unknown ones into Extra.
func (v *Launch) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Launch: its fields, then the members of Extra.
func (v Launch) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a ElectronLaunch: members by their exact names, unknown ones into Extra.
func (v *ElectronLaunch) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a ElectronLaunch: its fields, then the members of Extra.
func (v ElectronLaunch) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Platforms: members by their exact names, unknown ones into Extra.
func (v *Platforms) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Platforms: its fields, then the members of Extra.
func (v Platforms) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Platform: members by their exact names, unknown ones into Extra.
func (v *Platform) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Platform: its fields, then the members of Extra.
func (v Platform) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a WindowsPlatform: members by their exact names, unknown ones into Extra.
func (v *WindowsPlatform) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a WindowsPlatform: its fields, then the members of Extra.
func (v WindowsPlatform) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Registry: members by their exact names, unknown ones into Extra.
func (v *Registry) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Registry: its fields, then the members of Extra.
func (v Registry) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Location: members by their exact names, unknown ones into Extra.
func (v *Location) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Location: its fields, then the members of Extra.
func (v Location) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a ProtectedVectors: members by their exact names, unknown ones into Extra.
func (v *ProtectedVectors) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a ProtectedVectors: its fields, then the members of Extra.
func (v ProtectedVectors) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a URLVector: members by their exact names, unknown ones into Extra.
func (v *URLVector) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a URLVector: its fields, then the members of Extra.
func (v URLVector) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a TargetVector: members by their exact names, unknown ones into Extra.
func (v *TargetVector) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a TargetVector: its fields, then the members of Extra.
func (v TargetVector) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a CookieDomainVector: members by their exact names, unknown ones into Extra.
func (v *CookieDomainVector) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a CookieDomainVector: its fields, then the members of Extra.
func (v CookieDomainVector) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a StorageKeyVector: members by their exact names, unknown ones into Extra.
func (v *StorageKeyVector) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a StorageKeyVector: its fields, then the members of Extra.
func (v StorageKeyVector) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a GuardVectors: members by their exact names, unknown ones into Extra.
func (v *GuardVectors) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a GuardVectors: its fields, then the members of Extra.
func (v GuardVectors) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a GuardSource: members by their exact names, unknown ones into Extra.
func (v *GuardSource) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a GuardSource: its fields, then the members of Extra.
func (v GuardSource) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a GuardTargetInfo: members by their exact names, unknown ones into Extra.
func (v *GuardTargetInfo) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a GuardTargetInfo: its fields, then the members of Extra.
func (v GuardTargetInfo) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a GuardCapabilities: members by their exact names, unknown ones into Extra.
func (v *GuardCapabilities) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a GuardCapabilities: its fields, then the members of Extra.
func (v GuardCapabilities) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a GuardVector: members by their exact names, unknown ones into Extra.
func (v *GuardVector) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a GuardVector: its fields, then the members of Extra.
func (v GuardVector) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a GuardVectorControl: members by their exact names, unknown ones into Extra.
func (v *GuardVectorControl) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a GuardVectorControl: its fields, then the members of Extra.
func (v GuardVectorControl) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a GuardSkip: members by their exact names, unknown ones into Extra.
func (v *GuardSkip) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a GuardSkip: its fields, then the members of Extra.
func (v GuardSkip) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a GuardObservable: members by their exact names, unknown ones into Extra.
func (v *GuardObservable) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a GuardObservable: its fields, then the members of Extra.
func (v GuardObservable) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a GuardObservation: members by their exact names, unknown ones into Extra.
func (v *GuardObservation) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a GuardObservation: its fields, then the members of Extra.
func (v GuardObservation) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Case: members by their exact names, unknown ones into Extra.
func (v *Case) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Case: its fields, then the members of Extra.
func (v Case) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a Input: members by their exact names, unknown ones into Extra.
func (v *Input) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a Input: its fields, then the members of Extra.
func (v Input) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a FakeProcess: members by their exact names, unknown ones into Extra.
func (v *FakeProcess) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a FakeProcess: its fields, then the members of Extra.
func (v FakeProcess) MarshalJSON() ([]byte, error) { return marshalObject(v) }

// UnmarshalJSON reads a FakeServer: members by their exact names, unknown ones into Extra.
func (v *FakeServer) UnmarshalJSON(data []byte) error { return unmarshalObject(data, v) }

// MarshalJSON writes a FakeServer: its fields, then the members of Extra.
func (v FakeServer) MarshalJSON() ([]byte, error) { return marshalObject(v) }
