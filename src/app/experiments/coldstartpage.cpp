// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "coldstartpage.h"

#include "figuretext.h"
#include "format.h"
#include "plotstyle.h"

#include "ui_ExperimentColdStartParametersBase.h"

#include <KLocalizedString>

#include <QFile>
#include <QHeaderView>
#include <QTableWidget>

namespace Cachescope::App
{

using namespace Experiments;

namespace
{
// Sorts by a number kept beside the formatted text.
class NumberItem : public QTableWidgetItem
{
public:
    NumberItem(const QString &text, double value)
        : QTableWidgetItem(text)
    {
        setData(Qt::UserRole, value);
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem &other) const override
    {
        return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
    }
};

QString pagesOf(double resident, double pages)
{
    return i18nc("@item:intable %1 cached pages, %2 all pages, %3 percent",
                 "%1 of %2 (%3)",
                 QLocale().toString(qint64(resident)),
                 QLocale().toString(qint64(pages)),
                 pages > 0 ? QLocale().toString(100.0 * resident / pages, 'f', 0) + QLatin1Char('%') : QStringLiteral("–"));
}
} // namespace

ColdStartPage::ColdStartPage(QWidget *parent)
    : ExperimentPage({QStringLiteral("cold-start"),
                      i18nc("@title experiment", "Program Cold Start"),
                      i18nc("@title experiment", "A program's start with only its own files evicted"),
                      QStringLiteral("system-run")},
                     parent)
    , m_form(std::make_unique<Ui::ExperimentColdStartParametersBase>())
{
    setUpPage({
        makeParametersForm(*m_form),
        xi18nc("@info",
               "<para>A program is started once to record which files it reads. Then only those files are evicted and the program "
               "is started cold, then warm again.</para>"
               "<para>Cold minus warm is the time the program waits for the disk. Evicting only its own files (a "
               "<emphasis>selectively cold cache</emphasis>) gives a cold start close to what people see after booting; "
               "emptying the cache with drop_caches makes it far slower than real, because the whole system's files must "
               "come back too.</para>"),
        // Each run's cold and warm start as it ends: a program that starts
        // in milliseconds still draws a point a run (memory sampled over
        // its run would draw nothing).
        {
            {i18nc("@label plot legend", "Cold start"),
             PlotColors::bewareOrange,
             false,
             [](const Sample &sample) {
                 return sample.coldRunSeconds;
             }},
            {i18nc("@label plot legend", "Warm start"),
             PlotColors::plasmaBlue,
             false,
             [](const Sample &sample) {
                 return sample.warmRunSeconds;
             }},
        },
        i18nc("@label:axis", "Start time"),
        QString(),
        {
            {i18nc("@item:inlistbox", "Cold and warm start"), {QStringLiteral("cold_seconds"), QStringLiteral("warm_seconds")}},
            {measurementLabel("io_seconds"), {QStringLiteral("io_seconds")}},
        },
        LiveKey::Run,
        i18nc("@info:placeholder", "Each run's cold and warm start appear here as it ends"),
    });
    addPrivilegedOption(m_form->dropCachesCheck,
                        i18nc("@info:tooltip",
                              "Also starts the program after dropping the page cache (all but mapped pages) through the "
                              "privileged helper. You may be asked for your password."));

    m_filesTable = new QTableWidget(this);
    m_filesTable->setObjectName(QStringLiteral("programFilesTable"));
    m_filesTable->setColumnCount(FilesColumnCount);
    m_filesTable->setHorizontalHeaderLabels({
        i18nc("@title:column", "File"),
        i18nc("@title:column", "Size"),
        i18nc("@title:column", "Pages"),
        i18nc("@title:column", "Cached When Warm"),
        i18nc("@title:column", "Cached After Evicting"),
        i18nc("@title:column", "Note"),
    });
    m_filesTable->horizontalHeaderItem(WarmColumn)->setToolTip(i18nc("@info:tooltip", "Pages of the file in the cache after the warm run"));
    m_filesTable->horizontalHeaderItem(EvictedColumn)
        ->setToolTip(i18nc("@info:tooltip", "Pages still cached after the file was evicted for the cold run; see the note for why"));
    m_filesTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_filesTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_filesTable->setAlternatingRowColors(true);
    m_filesTable->setWordWrap(false);
    m_filesTable->verticalHeader()->setVisible(false);
    m_filesTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_filesTable->horizontalHeader()->setSectionResizeMode(FileColumn, QHeaderView::Stretch);
    m_filesTable->setTextElideMode(Qt::ElideLeft); // the file's name is at the end of its path
    m_filesTable->setWhatsThis(i18nc("@info:whatsthis", "The files the program read during its warm run: only these were evicted before each cold run."));
    addResultsTab(m_filesTable, i18nc("@title:tab", "Program's Files"));
    connect(this, &ExperimentPage::resultsShown, this, &ColdStartPage::showFiles);
}

ColdStartPage::~ColdStartPage() = default;

QTableWidget *ColdStartPage::filesTable() const
{
    return m_filesTable;
}

void ColdStartPage::showFiles()
{
    // The files of this run; of the earlier result when there is no run yet.
    const std::optional<Result> &shown = currentResult() ? currentResult() : comparedResult();
    m_filesTable->setSortingEnabled(false);
    m_filesTable->setRowCount(0);
    if (!shown || !shown->programFiles) {
        return;
    }
    const std::vector<ProgramFile> &files = *shown->programFiles;
    m_filesTable->setRowCount(int(files.size()));
    int row = 0;
    for (const ProgramFile &file : files) {
        const QString path = QFile::decodeName(file.path.c_str());
        const double pages = double(file.pages);
        auto *name = new QTableWidgetItem(path);
        name->setToolTip(path);
        m_filesTable->setItem(row, FileColumn, name);
        m_filesTable->setItem(row, SizeColumn, new NumberItem(formatBytes(file.size, ByteStyle::OneDecimal, QLocale()), double(file.size)));
        m_filesTable->setItem(row, PagesColumn, new NumberItem(QLocale().toString(qint64(file.pages)), pages));
        if (file.residencyHidden || !file.residentWarm) {
            // Never a number where the kernel gave none; sorted below every known figure.
            const QString reason = i18nc("@info:tooltip %1 the kernel's reason",
                                         "The kernel does not tell this user which pages of this file are cached: %1. It was still evicted.",
                                         engineText(file.hiddenReason));
            for (const int column : {int(WarmColumn), int(EvictedColumn)}) {
                auto *item = new NumberItem(i18nc("@item:intable residency not visible to this user", "hidden"), -1);
                item->setToolTip(reason);
                item->setForeground(palette().brush(QPalette::Disabled, QPalette::Text));
                m_filesTable->setItem(row, column, item);
            }
        } else {
            const double warm = double(*file.residentWarm);
            const double evicted = double(file.residentAfterEvict.value_or(0));
            m_filesTable->setItem(row, WarmColumn, new NumberItem(pagesOf(warm, pages), pages > 0 ? warm / pages : 0));
            m_filesTable->setItem(row, EvictedColumn, new NumberItem(pagesOf(evicted, pages), pages > 0 ? evicted / pages : 0));
        }
        const QString note = engineText(file.remainReason);
        auto *noteItem = new QTableWidgetItem(note);
        noteItem->setToolTip(note);
        m_filesTable->setItem(row, NoteColumn, noteItem);
        ++row;
    }
    m_filesTable->setSortingEnabled(true);
    m_filesTable->sortByColumn(SizeColumn, Qt::DescendingOrder);
}

std::unique_ptr<Experiment> ColdStartPage::makeExperiment(const PrivilegedSteps &privileged, QString *error)
{
    ColdStartParameters parameters;
    parameters.command = splitCommand(m_form->commandEdit->text(), error);
    if (parameters.command.empty()) {
        return nullptr;
    }
    parameters.runs = m_form->runsSpin->value();
    parameters.timeoutSeconds = m_form->timeoutSpin->value();
    parameters.dropCachesVariant = m_form->dropCachesCheck->isChecked() && m_form->dropCachesCheck->isEnabled();
    return makeColdStartExperiment(parameters, privileged);
}

} // namespace Cachescope::App
